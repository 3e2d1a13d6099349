// PostgreSQL: a call's final status can arrive while the dispatcher commits the call's submit.
// When that commit lands between the status's report UPDATE (which does not see the call yet)
// and the read that records the status in the call's meta (which does), the status must be
// applied again, not taken as done: else the call stays `submitted` for good.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { systemClock } from "../../../src/base/core/clock.js";
import type { Store } from "../../../src/base/store/store.js";
import { applyCallStatuses } from "../../../src/channels/voice/call-status.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../helpers/engines.js";
import { messageRow } from "../../helpers/message-row.js";

const suite = postgresAvailable ? describe : describe.skip;

suite("a final call status racing the submit's commit (PostgreSQL)", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("leaves the status to be applied again, and the next attempt reports the call", async () => {
    const { store } = db;
    const account = await createAccountWithKey(
      { store, clock: systemClock, actor: cliActor() },
      { username: "race", password: "race-password-1", credits: { voice: 10 }, rateLimit: 0 },
    );
    const id = "q01TESTRACE000000000000001";
    await store.db
      .insertInto("messages")
      .values(messageRow({ id, account_id: account.id, channel: "voice", route: "voice", wallet: "voice" }))
      .execute();

    // The dispatcher's transaction: the submit recorded, not yet committed.
    const dispatcher = new pg.Client({ connectionString: db.postgresUrl, options: `-c search_path=${db.schema}` });
    await dispatcher.connect();
    try {
      await dispatcher.query("begin");
      await dispatcher.query(
        "update messages set status = 'submitted', connector = 'sim', upstream_id = 'CA1', submitted_at = 1 where id = $1",
        [id],
      );
      // It commits right after the status's report UPDATE has run.
      let committed = false;
      const racing: Store = {
        ...store,
        statement(text) {
          const statement = store.statement(text);
          return {
            run: statement.run,
            all: async (trx, params) => {
              const rows = await statement.all(trx, params);
              if (!committed && /^\s*update messages/.test(text)) {
                committed = true;
                await dispatcher.query("commit");
              }
              return rows as never;
            },
          };
        },
      };
      const update = { connector: "sim", callSid: "CA1", status: "completed" as const, at: 2, durationSeconds: 3 };
      // The same batch records the call's `in-progress`: that must not count `completed` as done
      // too (it did, by call, and the call stayed `submitted` with `completed` in its meta).
      const answered = { connector: "sim", callSid: "CA1", status: "in-progress" as const, at: 1 };
      const first = await store.transaction((trx) => applyCallStatuses(racing, trx, [answered, update]));
      expect(committed).toBe(true);
      expect(first.changed).toEqual([]);
      expect([...first.found]).toEqual([answered]);

      const again = await store.transaction((trx) => applyCallStatuses(store, trx, [update]));
      expect(again.changed.map((row) => [row.id, row.status])).toEqual([[id, "delivered"]]);
      expect(again.found.size).toBe(1);
    } finally {
      await dispatcher.end();
    }
  });
});
