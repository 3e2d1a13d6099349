// Usernames are unique regardless of case, and every look-up ignores case: a second account
// `DEMO` beside `demo` would make a login, a transfer or an operator command reach whichever
// the database returned first.
import { sql } from "kysely";
import { expect, it, vi } from "vitest";
import { loadConfig } from "../../../src/base/runtime/config.js";
import { openStore } from "../../../src/base/store/store.js";
import { createEmptyDatabase, earlyAccountRow, migrateTo } from "../../helpers/empty-database.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { legacy, operatorCall } from "../../helpers/legacy.js";
import { keyOf } from "../../helpers/sms.js";

const BEFORE = "0011_message_parts_age";

describeEachEngine("usernames ignore case", (engine) => {
  const gateway = useTestGateway(engine);

  it("refuses an account whose name differs from an existing one only in case, through the operator API", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const existing = await buildAccount(t);
    for (const username of [
      existing.username.toUpperCase(),
      `${existing.username[0]!.toUpperCase()}${existing.username.slice(1)}`,
    ]) {
      const response = await call(t, "POST", "/admin/api/accounts", {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        json: { username, password: "a-long-password" },
      });
      expect(response.status, response.text).toBe(409);
      expect(response.body.error.code).toBe("conflict");
      expect(response.body.message).toContain("ignore case");
    }
    const rows = await t.db.store.db
      .selectFrom("accounts")
      .select("username")
      .where(sql<string>`lower(username)`, "=", existing.username)
      .execute();
    expect(rows).toEqual([{ username: existing.username }]);
    // The operator API finds the account by any case of its name, and answers with the stored one.
    const shown = await operatorCall(t, operator, "GET", `/accounts/${existing.username.toUpperCase()}`);
    expect(shown.body.data.username).toBe(existing.username);
  });

  it("sends a credit transfer to DEMO into demo's account, and logs demo in as DEMO", async () => {
    const t = gateway();
    const sender = await buildAccount(t, { credits: { sms: 100 } });
    const receiver = await buildAccount(t, { credits: { sms: 10 } });
    const transfer = await call(t, "POST", "/api/v2/credits/transfer", {
      headers: keyOf(sender),
      json: { recipient_username: receiver.username.toUpperCase(), amount: 5 },
    });
    expect(transfer.status, transfer.text).toBe(200);
    // The answer names the account as it is stored, so the client sees who got the credits.
    expect(transfer.body.data).toMatchObject({ recipient_username: receiver.username, amount: 5, balance: 95 });
    const balance = async (account: TestAccount) =>
      (await call(t, "GET", "/api/v2/balance", { headers: keyOf(account) })).body.data.balance;
    expect(await balance(receiver)).toBe(15);

    const credits = await legacy(t, "/api/getcredits", {
      username: receiver.username.toUpperCase(),
      password: receiver.password,
    });
    expect(credits.text).toBe("15");
    // Case folds on ASCII letters only: the Kelvin sign is not a K.
    const lookalike = await legacy(t, "/api/getcredits", {
      username: `\u212A${receiver.username.slice(1)}`,
      password: receiver.password,
    });
    expect(lookalike.text).toBe("-7");
  });
});

describeEachEngine("migration 0012 on accounts that differ only in case", (engine) => {
  it("keeps the oldest name, renames the later ones NAME~ID, and then refuses another case-duplicate", async () => {
    const empty = await createEmptyDatabase(engine);
    const store = await openStore(loadConfig({ DATABASE_URL: empty.url }).database);
    try {
      await migrateTo(store, engine, BEFORE);
      for (const username of ["demo", "other", "DEMO", "Demo", "Other"]) {
        await store.db.insertInto("accounts").values(earlyAccountRow(username)).execute();
      }
      const warnings: string[] = [];
      const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
        warnings.push(String(chunk));
        return true;
      });
      await store.migrate().finally(() => stderr.mockRestore());
      const rows = await store.db.selectFrom("accounts").select(["id", "username"]).orderBy("id").execute();
      expect(rows.map((r) => r.username)).toEqual([
        "demo",
        "other",
        `DEMO~${rows[2]!.id}`,
        `Demo~${rows[3]!.id}`,
        `Other~${rows[4]!.id}`,
      ]);
      // The operator is told which accounts got a new name, and why.
      expect(warnings.filter((w) => w.includes("migration 0012 renamed"))).toHaveLength(3);
      expect(warnings.join("")).toContain(`"DEMO" (id ${rows[2]!.id}) to "DEMO~${rows[2]!.id}"`);
      await expect(
        store.db
          .insertInto("accounts")
          .values({ username: "OTHER", password_hash: "x", created_at: 0, updated_at: 0 } as never)
          .execute(),
      ).rejects.toThrow(/unique|UNIQUE/);
    } finally {
      await store.close();
      await empty.drop();
    }
  });
});
