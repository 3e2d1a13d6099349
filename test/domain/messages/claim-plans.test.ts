// PostgreSQL claims (claimDueMessages) taken by several dispatchers at once, with statistics
// that no longer describe the table (taken when every message was delivered, then thousands
// queued): each claim stays within its limit, oldest first, no message is in two claims, and a
// claim writes nothing. An earlier claim, `update … where id in (select … limit n for update
// skip locked)`, was planned under such statistics as a semi-join that ran the locking sub-select
// again for every queued row, and took every queued message whatever its limit.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { systemClock } from "../../../src/base/core/clock.js";
import type { MessageRow } from "../../../src/base/store/schema.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { claimDueMessages } from "../../../src/domain/messages/index.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../helpers/engines.js";
import { messageRow } from "../../helpers/message-row.js";

const QUEUED = 3_000;
const LIMIT = 200;
const CLAIMS = 5;

(postgresAvailable ? describe : describe.skip)("claims at once, with stale statistics [postgres]", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    const account = await createAccountWithKey(
      { store: db.store, clock: systemClock, actor: cliActor() },
      { username: "claims", password: "claims-password", credits: { sms: 100 } },
    );
    // Statistics taken when every message was delivered: "queued" is a value they never saw.
    const delivered = Array.from({ length: QUEUED }, (_, i) =>
      messageRow({ account_id: account.id, id: `d${String(i).padStart(8, "0")}`, status: "delivered" }),
    );
    await db.store.transaction((trx) => db.store.insertMany(trx, "messages", delivered));
    await sql`analyze messages`.execute(db.store.db);
    const queued = Array.from({ length: QUEUED }, (_, i) =>
      messageRow({
        account_id: account.id,
        id: `q${String(i).padStart(8, "0")}`,
        due_at: 1_000 + i,
        created_at: 1_000 + i,
        attempts: 0,
      }),
    );
    await db.store.transaction((trx) => db.store.insertMany(trx, "messages", queued));
  });
  afterAll(() => db?.drop());

  it("claims at most its limit, oldest first, no message twice, while the others hold theirs", async () => {
    const claims: MessageRow[][] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // One claim after another, each transaction held open (its locks with it) until all are taken.
    const open: Promise<void>[] = [];
    for (let i = 0; i < CLAIMS; i++) {
      const taken = new Promise<void>((resolve, reject) => {
        open.push(
          db.store
            .transaction(async (trx) => {
              claims.push(await claimDueMessages(db.store, trx, 10_000_000, LIMIT));
              resolve();
              await released;
            })
            .catch(reject),
        );
      });
      await taken;
    }
    release();
    await Promise.all(open);

    claims.forEach((claimed, i) => {
      expect(claimed.map((m) => m.due_at)).toEqual(Array.from({ length: LIMIT }, (_, k) => 1_000 + i * LIMIT + k));
      expect(claimed.every((m) => m.status === "queued" && m.attempts === 1)).toBe(true);
    });
    expect(new Set(claims.flat().map((m) => m.id)).size).toBe(CLAIMS * LIMIT);
    const { n } = await db.store.db
      .selectFrom("messages")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "queued")
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(QUEUED);
  });
});
