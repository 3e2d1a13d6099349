// Pruning carrier message parts (housekeeping): a week after sending once the message is
// reported and every part final, a month after sending in any case; never the parts of a
// message still waiting for its report, or of a recent one.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { systemClock } from "../../../src/base/core/clock.js";
import type { MessagePartsTable, MessageStatus } from "../../../src/base/store/schema.js";
import {
  PARTS_MAX_AGE_MS,
  PARTS_RETENTION_MS,
  pruneParts,
} from "../../../src/delivery/carriers/smpp/finished-parts.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import { smsRow } from "./http-sms-helpers.js";

const NOW = 1_795_000_000_000;
const DAY = 24 * 60 * 60 * 1000;

describeEachEngine("message parts pruning", (engine) => {
  let db: TestDatabase;
  let accountId: number;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    accountId = (
      await createAccountWithKey(
        { store: db.store, clock: systemClock, actor: cliActor() },
        { username: "prune", password: "prune-password", credits: { sms: 10 } },
      )
    ).id;
  });
  afterAll(async () => {
    await db.drop();
  });

  let serial = 0;
  /** A message in `status` with parts sent `age` ago, each part pending or delivered. */
  async function message(status: MessageStatus, age: number, parts: Array<"pending" | "delivered">): Promise<string> {
    const row = smsRow({ account_id: accountId, status, connector: "smsc" }, 500 + serial++);
    await db.store.db.insertInto("messages").values(row).execute();
    const rows: MessagePartsTable[] = parts.map((state, index) => ({
      message_id: row.id,
      part_index: index,
      connector: "smsc",
      upstream_id: `${row.id}-${index}`,
      status: state,
      error_code: null,
      done_at: state === "pending" ? null : NOW - age + 1_000,
      created_at: NOW - age,
      part_count: parts.length,
    }));
    await db.store.db.insertInto("message_parts").values(rows).execute();
    return row.id;
  }

  const kept = async () =>
    new Set(
      (await db.store.db.selectFrom("message_parts").select("message_id").distinct().execute()).map(
        (r) => r.message_id,
      ),
    );

  it("deletes what no receipt or start-up sweep can need any more, and keeps the rest", async () => {
    const week = PARTS_RETENTION_MS;
    const reportedOld = await message("delivered", week + DAY, ["delivered", "delivered", "delivered"]);
    const reportedRecent = await message("delivered", week - DAY, ["delivered"]);
    const pendingOld = await message("submitted", week + DAY, ["delivered", "pending"]);
    const waitingOld = await message("submitted", week + DAY, ["delivered"]);
    const ancient = await message("submitted", PARTS_MAX_AGE_MS + DAY, ["pending"]);

    expect(await pruneParts(db.store.db, NOW)).toBe(2);
    const left = await kept();
    expect(left.has(reportedOld)).toBe(false);
    expect(left.has(ancient)).toBe(false);
    for (const id of [reportedRecent, pendingOld, waitingOld]) expect(left.has(id)).toBe(true);
    expect(await pruneParts(db.store.db, NOW)).toBe(0);
  });

  it("takes at most `limit` messages a call", async () => {
    for (let i = 0; i < 5; i++) await message("failed", PARTS_RETENTION_MS + DAY, ["delivered", "delivered"]);
    expect(await pruneParts(db.store.db, NOW, 3)).toBe(3);
    expect(await pruneParts(db.store.db, NOW, 3)).toBe(2);
  });
});
