// An account's first SMPP password set by several operator calls at once (the console's save
// clicked twice, a script and the console): each PATCH /admin/api/accounts/{username} read "no
// SMPP settings yet" before any had written, and all but the first insert met the row another
// had written: 500 internal_error (23505 on PostgreSQL, SQLITE_CONSTRAINT on SQLite). Every call
// is a change of settings the account may take in any order: each answers 200, one row is kept.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

/** Accounts tried, and calls at once on each: before the fix every engine failed some (see the commit). */
const ACCOUNTS = 6;
const AT_ONCE = 8;

describeEachEngine("concurrent first SMPP passwords", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });
  let operator: TestAccount;
  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it(`answers ${AT_ONCE} PATCHes at once setting an account's first SMPP password with 200 each, keeping one row`, async () => {
    const t = gateway();
    const answers: number[] = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const account = await buildAccount(t);
      const patch = (i: number) =>
        call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
          headers: { authorization: `Bearer ${operator.apiKey}` },
          json: { smpp_password: `pw${i}`, smpp_max_binds: i + 1 },
        });
      const results = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => patch(i)));
      for (const result of results) {
        answers.push(result.status);
        expect(result.status, result.text).toBe(200);
      }
      const rows = await t.db.store.db
        .selectFrom("smpp_accounts")
        .select("max_binds")
        .where("account_id", "=", account.id)
        .execute();
      expect(rows).toHaveLength(1);
      // The last write wins: one of the limits sent.
      expect(rows[0]!.max_binds).toBeGreaterThanOrEqual(1);
      expect(rows[0]!.max_binds).toBeLessThanOrEqual(AT_ONCE);
    }
    expect(answers).toEqual(Array(ACCOUNTS * AT_ONCE).fill(200));
  });
});
