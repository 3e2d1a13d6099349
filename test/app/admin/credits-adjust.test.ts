// Correcting a wallet (issue 38): `credits add -50` was refused with no way to undo a top-up
// entered wrong. `credits adjust` (CLI) and POST /admin/api/accounts/{username}/credits/adjust
// write one `adjustment` ledger entry with its reason, up or down; taking credits never
// overdraws, and every wallet stays the sum of its entries.
import { beforeAll, expect, it } from "vitest";
import { ledgerSum, walletBalance } from "../../../src/domain/accounts/index.js";
import { cliOk, runCli } from "../../helpers/cli.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("credit adjustments", (engine) => {
  const gateway = useTestGateway(engine);
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  const adjust = (t: TestGateway, username: string, json: unknown) =>
    call(t, "POST", `/admin/api/accounts/${username}/credits/adjust`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json,
    });

  /** The account's sms ledger entries, oldest first, as (kind, amount in milli-credits, note). */
  const entries = async (t: TestGateway, account: TestAccount) =>
    (
      await t.db.store.db
        .selectFrom("ledger_entries")
        .select(["kind", "amount", "note"])
        .where("account_id", "=", account.id)
        .where("wallet", "=", "sms")
        .orderBy("id")
        .execute()
    ).map((row) => [row.kind, Number(row.amount), row.note]);

  const audited = async (t: TestGateway, account: TestAccount) => {
    const balance = await walletBalance(t.db.store.db, account.id, "sms");
    expect(await ledgerSum(t.db.store.db, account.id, "sms")).toBe(balance);
    return balance;
  };

  it("takes and gives credits through the operator API with a reason, never below zero", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const down = await adjust(t, account.username, { wallet: "sms", amount: -40, reason: "top-up entered twice" });
    expect(down.status, down.text).toBe(200);
    expect(down.body.data).toEqual({
      account: account.username,
      wallet: "sms",
      adjusted: -40,
      reason: "top-up entered twice",
      balance: 60,
    });
    const up = await adjust(t, account.username, { wallet: "sms", amount: 2.5, reason: "goodwill" });
    expect(up.body.data.balance).toBe(62.5);

    const over = await adjust(t, account.username, { wallet: "sms", amount: -70, reason: "too much" });
    expect(over.status).toBe(402);
    expect(over.body.error.code).toBe("insufficient_credits");
    expect(over.body.message).toContain("holds 62.5 credits");
    for (const [body, field] of [
      [{ wallet: "sms", amount: 0, reason: "nothing" }, "amount"],
      [{ wallet: "sms", amount: 5, reason: "   " }, "reason"],
    ] as const) {
      const refused = await adjust(t, account.username, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.field).toBe(field);
    }
    expect((await adjust(t, account.username, { wallet: "sms", amount: 5 })).status).toBe(400);
    expect((await adjust(t, "nobody-here", { wallet: "sms", amount: 5, reason: "x" })).status).toBe(404);
    const refused = await call(t, "POST", `/admin/api/accounts/${account.username}/credits/adjust`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { wallet: "sms", amount: 5, reason: "mine" },
    });
    expect(refused.status).toBe(403);

    expect(await entries(t, account)).toEqual([
      ["topup", 100_000, expect.any(String)],
      ["adjustment", -40_000, "top-up entered twice"],
      ["adjustment", 2_500, "goodwill"],
    ]);
    expect(await audited(t, account)).toBe(62_500);
  });

  it("does the same from the CLI, a negative amount written either way", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    const base = ["credits", "adjust", "--account", account.username, "--wallet", "sms"];
    expect(await cliOk([...base, "--amount", "-50", "--reason", "top-up entered twice"], env)).toBe(
      `${account.username} sms adjusted by -50: balance 50\n`,
    );
    expect(JSON.parse(await cliOk([...base, "--amount=-10", "--reason", "fee", "--json"], env))).toMatchObject({
      adjusted: -10,
      balance: 40,
    });
    const over = await runCli([...base, "--amount", "-41", "--reason", "x"], env);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain("holds 40 credits: it cannot lose 41");
    expect((await runCli([...base, "--amount", "0", "--reason", "x"], env)).code).not.toBe(0);
    expect((await runCli([...base, "--amount", "5"], env)).code).not.toBe(0);
    expect(await audited(t, account)).toBe(40_000);
  });
});
