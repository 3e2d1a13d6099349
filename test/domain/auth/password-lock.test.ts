import { beforeAll, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { hashPassword } from "../../../src/domain/auth/passwords.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";

const THRESHOLD = 3;

// The engines' suites run at the same time (a remembered login's 2 s is waited out), each on its
// own gateway and clock.
describeEnginesTogether("password logins, lock-out and account state", (engine) => {
  const clock = new ManualClock();
  const gateway = useTestGateway(engine, { clock, env: { LOGIN_LOCK_THRESHOLD: String(THRESHOLD) } });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  const getcredits = async (t: TestGateway, username: string, password: string) =>
    (await call(t, "GET", `/api/getcredits?${new URLSearchParams({ username, password })}`)).text;

  const patchAccount = (t: TestGateway, username: string, json: unknown) =>
    call(t, "PATCH", `/admin/api/accounts/${username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json,
    });

  it("locks the account after LOGIN_LOCK_THRESHOLD failures in a row, even against the right password", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    for (let i = 0; i < THRESHOLD; i++) expect(await getcredits(t, account.username, "wrong-password")).toBe("-7");
    expect(await getcredits(t, account.username, account.password)).toBe("-16");
    expect(await getcredits(t, account.username, "wrong-password")).toBe("-16");
    // One address's failures lock that address out (test/auth/login-locks.test.ts), not the account.
    const locks = await call(t, "GET", "/admin/api/login-locks", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(locks.body.data).toContainEqual({
      username: account.username,
      scope: "address",
      address: "127.0.0.1",
      locked_until: expect.stringMatching(/Z$/),
    });
    // The lock is on password logins; the account's API keys still work.
    expect((await call(t, "GET", `/api/getcredits?apikey=${account.apiKey}`)).text).toBe("7");
  });

  it("locks a cached login too: the lock is checked before the remembered password", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    expect(await getcredits(t, account.username, account.password)).toBe("7");
    for (let i = 0; i < THRESHOLD; i++) expect(await getcredits(t, account.username, "wrong-password")).toBe("-7");
    expect(await getcredits(t, account.username, account.password)).toBe("-16");
  });

  it("lets the operator unlock the account at once", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    for (let i = 0; i < THRESHOLD; i++) await getcredits(t, account.username, "wrong-password");
    expect(await getcredits(t, account.username, account.password)).toBe("-16");
    const unlocked = await patchAccount(t, account.username, { unlock: true });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.data.locked_until).toBeNull();
    expect(await getcredits(t, account.username, account.password)).toBe("7");
  });

  it("unlocks by itself after LOGIN_LOCK_MINUTES", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    for (let i = 0; i < THRESHOLD; i++) await getcredits(t, account.username, "wrong-password");
    clock.advance(14 * 60_000);
    expect(await getcredits(t, account.username, account.password)).toBe("-16");
    clock.advance(61_000);
    expect(await getcredits(t, account.username, account.password)).toBe("7");
  });

  it("counts failures in a row: a success in between, cached or not, starts the count again", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < THRESHOLD - 1; i++)
        expect(await getcredits(t, account.username, "wrong-password")).toBe("-7");
      expect(await getcredits(t, account.username, account.password)).toBe("7");
    }
  });

  it("locks when the failures arrive all at once", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    const answers = await Promise.all(
      Array.from({ length: THRESHOLD * 4 }, () => getcredits(t, account.username, "wrong-password")),
    );
    for (const answer of answers) expect(["-7", "-16"]).toContain(answer);
    expect(await getcredits(t, account.username, account.password)).toBe("-16");
  });

  it("drops a remembered password the moment the operator changes it", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    expect(await getcredits(t, account.username, account.password)).toBe("7");
    expect(await getcredits(t, account.username, account.password)).toBe("7");
    expect((await patchAccount(t, account.username, { password: "brand-new-password" })).status).toBe(200);
    expect(await getcredits(t, account.username, account.password)).toBe("-7");
    expect(await getcredits(t, account.username, "brand-new-password")).toBe("7");
  });

  it("drops a remembered password changed by another process, which sends this one no signal, within 2 s", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    expect(await getcredits(t, account.username, account.password)).toBe("7");
    await t.db.store.db
      .updateTable("accounts")
      .set({ password_hash: await hashPassword("changed-elsewhere") })
      .where("id", "=", account.id)
      .execute();
    // The login row is reused for at most 2 s when nothing signals a change (every change
    // Switchboard makes does: the test above and cli.test.ts); then the old password fails.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect(await getcredits(t, account.username, account.password)).toBe("-7");
    expect(await getcredits(t, account.username, "changed-elsewhere")).toBe("7");
  });

  it.each(["inactive", "blocked"])("answers 403 account_inactive to the v2 key of an %s account", async (status) => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    const balance = () => call(t, "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect((await balance()).status).toBe(200);
    expect((await patchAccount(t, account.username, { status })).status).toBe(200);
    const refused = await balance();
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, error: { code: "account_inactive" } });
    expect(refused.body.message).toContain(status);
    expect((await patchAccount(t, account.username, { status: "active" })).status).toBe(200);
    expect((await balance()).status).toBe(200);
  });
});
