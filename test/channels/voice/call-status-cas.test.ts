// A call status whose every compare-and-set on the call's meta loses to another callback is not
// in the meta, so it must not be counted as recorded: it is left to be applied again. The other
// callback is played by the transaction itself: each time the status reads the call, another
// writer's meta is written before the status's compare-and-set runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { systemClock } from "../../../src/base/core/clock.js";
import type { Db } from "../../../src/base/store/store.js";
import { applyCallStatuses } from "../../../src/channels/voice/call-status.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { createTestDatabase, type TestDatabase } from "../../helpers/engines.js";
import { messageRow } from "../../helpers/message-row.js";

describe("a call status that keeps losing its compare-and-set", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("is not counted as recorded until its meta is written", async () => {
    const { store } = db;
    const account = await createAccountWithKey(
      { store, clock: systemClock, actor: cliActor() },
      { username: "cas", password: "cas-password-1", credits: { voice: 10 }, rateLimit: 0 },
    );
    const id = "q01TESTCAS0000000000000001";
    await store.db
      .insertInto("messages")
      .values(
        messageRow({
          id,
          account_id: account.id,
          channel: "voice",
          route: "voice",
          wallet: "voice",
          status: "submitted",
          connector: "sim",
          upstream_id: "CA1",
          submitted_at: 1,
        }),
      )
      .execute();
    const update = { connector: "sim", callSid: "CA1", status: "ringing" as const, at: 2 };
    const meta = async () =>
      (await store.db.selectFrom("messages").select("meta").where("id", "=", id).executeTakeFirstOrThrow()).meta;

    let races = 0;
    let writes = 0;
    /** After each read of the call (id, meta, status), while `races` last, another writer changes its meta. */
    const racing = (trx: Db): Db =>
      trx.withPlugin({
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          const row = args.result.rows[0] as Record<string, unknown> | undefined;
          if (races > 0 && row && "meta" in row && "status" in row) {
            races--;
            writes++;
            // The store's own statement (SQLite: the same connection, inside this transaction):
            // Kysely would wait for the read still in hand.
            await store
              .statement("update messages set meta = ? where id = ?")
              .run(trx, [JSON.stringify({ other_writer: writes }), id]);
          }
          return args.result;
        },
      });

    races = 5;
    const lost = await store.transaction((trx) => applyCallStatuses(store, racing(trx), [update]));
    expect(lost.found.size).toBe(0);
    expect(JSON.parse((await meta()) ?? "{}")).toEqual({ other_writer: 5 });

    races = 4; // the fifth attempt wins
    const won = await store.transaction((trx) => applyCallStatuses(store, racing(trx), [update]));
    expect(won.found.size).toBe(1);
    expect(JSON.parse((await meta()) ?? "{}")).toEqual({ other_writer: 9, call_status: "ringing" });
  });
});
