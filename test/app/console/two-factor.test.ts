// Two-factor sign-in through the real server (issue 42, item 2): enrolment (secret, otpauth URL,
// QR, a first code, ten recovery codes), the second step of a sign-in and its challenge (single
// use, short-lived), codes never accepted twice, recovery codes single use, wrong codes counted
// by the login locks, the account's and the operator's "required", resets by an owner and by the
// operator, turning it off, the audit entries; and the API's password logins are never asked.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { callAs, sessionOf, signIn } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { legacy } from "../../helpers/legacy.js";
import { totpCode } from "../../helpers/totp.js";

const STEP = 30_000;

describeEachEngine("two-factor sign-in", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:05Z");
  const gateway = useTestGateway(engine, {
    clock,
    env: { LOGIN_LOCK_THRESHOLD: "3", TWO_FACTOR_OPERATORS: "required" },
  });

  const signInStart = (t: TestGateway, account: TestAccount) =>
    call(t, "POST", "/console/session", { json: { username: account.username, password: account.password } });
  const auditActions = async (t: TestGateway, account: TestAccount) => {
    const answer = await call(t, "GET", "/api/v2/audit", { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(answer.status, answer.text).toBe(200);
    return (answer.body.data as Array<{ action: string }>).map((entry) => entry.action);
  };

  /** Signs in with the password (no factor yet), enrols, and answers the secret and recovery codes. */
  async function enrol(t: TestGateway, account: TestAccount) {
    const session = await signIn(t, account.username, account.password);
    const enrolment = await callAs(t, session, "POST", "/console/two-factor", { json: {} });
    expect(enrolment.status, enrolment.text).toBe(201);
    const secret: string = enrolment.body.data.secret;
    const confirmed = await callAs(t, session, "POST", "/console/two-factor/confirm", {
      json: { code: totpCode(secret, clock.now().getTime()) },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    clock.advance(STEP);
    return { secret, recoveryCodes: confirmed.body.data.recovery_codes as string[], session };
  }

  it("enrols: secret, otpauth:// URL and QR code; a wrong first code is refused; ten recovery codes once", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const session = await signIn(t, account.username, account.password);
    const before = await callAs(t, session, "GET", "/console/two-factor");
    expect(before.body.data).toEqual({
      login: account.username.toLowerCase(),
      enabled: false,
      enabled_at: null,
      recovery_codes_left: 0,
      required: false,
      required_by: null,
    });
    const started = await callAs(t, session, "POST", "/console/two-factor", { json: {} });
    expect(started.status, started.text).toBe(201);
    const { secret, otpauth_url, qr_code } = started.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // SHA-1, 6 digits and 30 s are the URL's defaults: left out, as every app reads them.
    expect(otpauth_url).toBe(
      `otpauth://totp/Switchboard:${account.username.toLowerCase()}?secret=${secret}&issuer=Switchboard`,
    );
    expect(qr_code).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(qr_code.split(",")[1], "base64").toString()).toContain("<svg");

    const now = clock.now().getTime();
    const wrong = await callAs(t, session, "POST", "/console/two-factor/confirm", {
      json: { code: totpCode(secret, now + 5 * STEP) },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.code).toBe("wrong_code");
    const bad = await callAs(t, session, "POST", "/console/two-factor/confirm", { json: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_request");

    const confirmed = await callAs(t, session, "POST", "/console/two-factor/confirm", {
      json: { code: totpCode(secret, now) },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    const codes: string[] = confirmed.body.data.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const after = await callAs(t, session, "GET", "/console/two-factor");
    expect(after.body.data).toMatchObject({
      enabled: true,
      enabled_at: clock.now().toISOString(),
      recovery_codes_left: 10,
    });
    // On already: a second enrolment must wait for it to be turned off.
    const again = await callAs(t, session, "POST", "/console/two-factor", { json: {} });
    expect(again.status).toBe(409);
    // Only hashes are stored.
    const stored = await t.db.store.db.selectFrom("two_factor_recovery_codes").select("code_hash").execute();
    expect(stored.map((row) => row.code_hash).join()).not.toContain(codes[0]!.slice(0, 5));
    expect(await auditActions(t, account)).toContain("two_factor.enrol");
  });

  it("signs in in two steps: a challenge, then a code; the challenge and the code serve once", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const { secret } = await enrol(t, account);

    const first = await signInStart(t, account);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get("set-cookie")).toBeNull();
    expect(first.body.data).toEqual({
      second_step: "totp",
      challenge: expect.stringMatching(/^[\w-]{43}$/),
      expires_at: new Date(clock.now().getTime() + 5 * 60_000).toISOString(),
    });
    const challenge: string = first.body.data.challenge;
    const code = totpCode(secret, clock.now().getTime());

    const unknown = await call(t, "POST", "/console/session/totp", { json: { challenge: "nope", code } });
    expect(unknown.status).toBe(401);
    const missing = await call(t, "POST", "/console/session/totp", { json: { challenge } });
    expect(missing.status).toBe(400);

    const done = await call(t, "POST", "/console/session/totp", { json: { challenge, code } });
    expect(done.status, done.text).toBe(201);
    const session = sessionOf(done);
    expect(done.body.data.username).toBe(account.username);
    expect((await callAs(t, session, "GET", "/console/session")).status).toBe(200);
    expect((await callAs(t, session, "GET", "/api/v2/balance")).status).toBe(200);

    // The challenge is spent; and the same code (its time step) is refused with a new one.
    const reused = await call(t, "POST", "/console/session/totp", { json: { challenge, code } });
    expect(reused.status).toBe(401);
    const second = (await signInStart(t, account)).body.data.challenge;
    const replay = await call(t, "POST", "/console/session/totp", { json: { challenge: second, code } });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe("unauthorized");
    clock.advance(STEP);
    const next = await call(t, "POST", "/console/session/totp", {
      json: { challenge: second, code: totpCode(secret, clock.now().getTime()) },
    });
    expect(next.status, next.text).toBe(201);

    // A challenge expires.
    const late = (await signInStart(t, account)).body.data.challenge;
    clock.advance(5 * 60_000 + 1);
    const expired = await call(t, "POST", "/console/session/totp", {
      json: { challenge: late, code: totpCode(secret, clock.now().getTime()) },
    });
    expect(expired.status).toBe(401);
  });

  it("takes each recovery code once, recorded in the audit log", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const { recoveryCodes } = await enrol(t, account);
    const challenge = (await signInStart(t, account)).body.data.challenge;
    const used = await call(t, "POST", "/console/session/totp", {
      json: { challenge, code: recoveryCodes[3]!.toUpperCase() },
    });
    expect(used.status, used.text).toBe(201);
    const state = await callAs(t, sessionOf(used), "GET", "/console/two-factor");
    expect(state.body.data.recovery_codes_left).toBe(9);
    const again = (await signInStart(t, account)).body.data.challenge;
    const reused = await call(t, "POST", "/console/session/totp", {
      json: { challenge: again, code: recoveryCodes[3] },
    });
    expect(reused.status).toBe(401);
    expect(await auditActions(t, account)).toContain("two_factor.recovery_code_use");
    // The entry says how many codes there were and are (it held nothing: `— → —` on the console).
    const entries = await call(t, "GET", "/api/v2/audit?action=two_factor.recovery_code_use", {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(entries.body.data).toMatchObject([
      { before: { recovery_codes_left: 10 }, after: { recovery_codes_left: 9 } },
    ]);
  });

  it("counts wrong codes in the login locks: the address is locked as after wrong passwords", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const { secret } = await enrol(t, account);
    const challenge = (await signInStart(t, account)).body.data.challenge;
    const good = totpCode(secret, clock.now().getTime());
    for (let i = 0; i < 3; i++) {
      const wrong = await call(t, "POST", "/console/session/totp", {
        json: { challenge, code: good === "000000" ? "111111" : "000000" },
      });
      expect(wrong.status).toBe(401);
    }
    const locked = await call(t, "POST", "/console/session/totp", { json: { challenge, code: good } });
    expect(locked.status).toBe(403);
    expect(locked.body.error).toMatchObject({ code: "account_locked", legacy_code: -16 });
    const password = await signInStart(t, account);
    expect(password.status).toBe(403);
    expect(password.body.error.code).toBe("account_locked");
  });

  it("asks an operator login without a factor to enrol at sign-in, with the challenge, then opens its session", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const customer = await buildAccount(t);
    expect((await signInStart(t, customer)).status).toBe(201);

    const first = await signInStart(t, operator);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.second_step).toBe("enrol");
    const challenge: string = first.body.data.challenge;
    // Not a session: the operator API stays closed to the challenge.
    expect((await call(t, "POST", "/console/session/totp", { json: { challenge, code: "123456" } })).status).toBe(401);
    const started = await call(t, "POST", "/console/two-factor", { json: { challenge } });
    expect(started.status, started.text).toBe(201);
    const secret: string = started.body.data.secret;
    const confirmed = await call(t, "POST", "/console/two-factor/confirm", {
      json: { challenge, code: totpCode(secret, clock.now().getTime()) },
    });
    expect(confirmed.status, confirmed.text).toBe(201);
    expect(confirmed.body.data).toMatchObject({ username: operator.username, role: "operator" });
    expect(confirmed.body.data.recovery_codes).toHaveLength(10);
    const session = sessionOf(confirmed);
    expect((await callAs(t, session, "GET", "/admin/api/login-locks")).status).toBe(200);
    // Served once.
    const reused = await call(t, "POST", "/console/two-factor", { json: { challenge } });
    expect(reused.status).toBe(401);
    clock.advance(STEP);
    expect((await signInStart(t, operator)).body.data.second_step).toBe("totp");

    const policy = await call(t, "GET", "/api/v2/two-factor/policy", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(policy.body.data).toEqual({ required: false, in_force: true, required_by: "operator_policy" });
  });

  it("requires a factor of every login when the account says so (audited)", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const auth = { authorization: `Bearer ${account.apiKey}` };
    const bad = await call(t, "PUT", "/api/v2/two-factor/policy", { headers: auth, json: { required: "yes" } });
    expect(bad.status).toBe(400);
    const set = await call(t, "PUT", "/api/v2/two-factor/policy", { headers: auth, json: { required: true } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data).toEqual({ required: true, in_force: true, required_by: "account" });
    expect((await signInStart(t, account)).body.data.second_step).toBe("enrol");
    expect(await auditActions(t, account)).toContain("two_factor.policy");
    await call(t, "PUT", "/api/v2/two-factor/policy", { headers: auth, json: { required: false } });
    expect((await signInStart(t, account)).status).toBe(201);
  });

  it("turns off with a code; an owner and the operator reset a factor (audited), a missing one is 404", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);
    const { secret, session } = await enrol(t, account);
    const wrong = await callAs(t, session, "DELETE", "/console/two-factor", { json: { code: "abcde-fghij" } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.code).toBe("wrong_code");
    const off = await callAs(t, session, "DELETE", "/console/two-factor", {
      json: { code: totpCode(secret, clock.now().getTime()) },
    });
    expect(off.status, off.text).toBe(200);
    expect((await signInStart(t, account)).status).toBe(201);

    await enrol(t, account);
    expect((await signInStart(t, account)).status).toBe(200);
    const admin = { authorization: `Bearer ${operator.apiKey}` };
    const reset = await call(t, "DELETE", `/admin/api/accounts/${account.username}/two-factor`, { headers: admin });
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.data).toEqual({ username: account.username, login: account.username.toLowerCase(), reset: true });
    expect((await signInStart(t, account)).status).toBe(201);
    const none = await call(t, "DELETE", `/admin/api/accounts/${account.username}/two-factor`, { headers: admin });
    expect(none.status).toBe(404);
    const customerKey = await call(t, "DELETE", `/admin/api/accounts/${account.username}/two-factor`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(customerKey.status).toBe(403);

    await enrol(t, account);
    const own = await call(t, "DELETE", `/api/v2/two-factor/logins/${account.username}`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(own.status, own.text).toBe(200);
    expect((await signInStart(t, account)).status).toBe(201);
    const actions = await auditActions(t, account);
    expect(actions.filter((action) => action === "two_factor.reset")).toHaveLength(2);
    expect(actions).toContain("two_factor.disable");
  });

  it("never asks the API's password logins for a code", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 42 } });
    await enrol(t, account);
    const balance = await legacy(t, "/api/getcredits", { username: account.username, password: account.password });
    expect(balance.status).toBe(200);
    expect(balance.text.trim()).toBe("42");
    const v2 = await call(t, "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(v2.status).toBe(200);
  });
});
