// A login's console sessions when its second factor changes, through the real server on both
// engines (audit-sec, section 7): turning the factor on ends the login's other sessions (each was
// opened without it) and keeps the one it came with; turned on at a sign-in's enrolment, every
// earlier one ends; a reset by an owner or by the operator (a lost or stolen phone) ends the
// login's sessions but the caller's own. Other logins, and an operator's view, are not touched.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { addConsoleUser, callAs, type SignedIn, signIn, signInUser, userPassword } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { totpCode } from "../../helpers/totp.js";

const STEP = 30_000;

describeEachEngine("a login's sessions when its second factor changes", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:05Z");
  const gateway = useTestGateway(engine, { clock });

  const cookieOf = (response: { headers: Headers }) => (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const alive = async (t: TestGateway, session: SignedIn) =>
    (await callAs(t, session, "GET", "/console/session")).status;
  const asKey = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });
  async function audit(t: TestGateway, account: TestAccount, action: string) {
    const answer = await call(t, "GET", `/api/v2/audit?action=${action}`, { headers: asKey(account) });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data as Array<Record<string, unknown>>;
  }
  /** Turns the factor on from a signed-in session; answers the secret. */
  async function enrolOn(t: TestGateway, session: SignedIn): Promise<string> {
    const started = await callAs(t, session, "POST", "/console/two-factor", { json: {} });
    expect(started.status, started.text).toBe(201);
    const confirmed = await callAs(t, session, "POST", "/console/two-factor/confirm", {
      json: { code: totpCode(started.body.data.secret, clock.now().getTime()) },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    clock.advance(STEP);
    return started.body.data.secret;
  }

  it("turning the factor on ends the login's other sessions; this one, other logins and a view stay", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    await addConsoleUser(t, account, "dev", "developer", { signIn: false });
    const here = await signIn(t, account.username, account.password);
    const elsewhere = await signIn(t, account.username, account.password);
    const dev = await signInUser(t, account.username, "dev");
    const staff = await signIn(t, operator.username, operator.password);
    const opened = await callAs(t, staff, "POST", "/console/session/view", { json: { username: account.username } });
    expect(opened.status, opened.text).toBe(201);
    const view = { ...staff, cookie: `${staff.cookie}; ${cookieOf(opened)}` };
    expect((await callAs(t, view, "GET", "/console/session")).body.data).toMatchObject({ read_only: true });

    await enrolOn(t, here);
    expect(await alive(t, here)).toBe(200);
    expect(await alive(t, elsewhere)).toBe(401);
    expect(await alive(t, dev)).toBe(200);
    expect((await callAs(t, view, "GET", "/console/session")).body.data).toMatchObject({ read_only: true });
    const [entry] = await audit(t, account, "two_factor.enrol");
    expect(entry).toMatchObject({ after: { login: account.username, sessions_ended: 1 } });

    // A user's factor: the user's other session ends, the owner's stays.
    const devElsewhere = await signInUser(t, account.username, "dev");
    await enrolOn(t, dev);
    expect(await alive(t, dev)).toBe(200);
    expect(await alive(t, devElsewhere)).toBe(401);
    expect(await alive(t, here)).toBe(200);
  });

  it("turned on at a sign-in the account requires it of, every earlier session of the login ends", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const before = await addConsoleUser(t, account, "sue", "support");
    const policy = await call(t, "PUT", "/api/v2/two-factor/policy", {
      headers: asKey(account),
      json: { required: true },
    });
    expect(policy.status, policy.text).toBe(200);

    const first = await call(t, "POST", "/console/session", {
      json: { username: account.username, login: "sue", password: userPassword("sue") },
    });
    expect(first.body.data.second_step).toBe("enrol");
    const challenge = first.body.data.challenge;
    const started = await call(t, "POST", "/console/two-factor", { json: { challenge } });
    expect(started.status, started.text).toBe(201);
    const confirmed = await call(t, "POST", "/console/two-factor/confirm", {
      json: { challenge, code: totpCode(started.body.data.secret, clock.now().getTime()) },
    });
    expect(confirmed.status, confirmed.text).toBe(201);
    clock.advance(STEP);
    const after = { cookie: cookieOf(confirmed), csrf: confirmed.body.data.csrf_token, setCookie: "" };
    expect(await alive(t, after)).toBe(200);
    expect(await alive(t, before)).toBe(401);
  });

  it("a reset by an owner or by the operator ends the login's sessions; the caller's own stays", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const pat = await addConsoleUser(t, account, "pat", "developer");
    await enrolOn(t, pat);
    const owner = await signIn(t, account.username, account.password);

    const reset = await callAs(t, owner, "DELETE", "/api/v2/two-factor/logins/pat");
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.data).toEqual({ login: "pat", reset: true });
    expect(await alive(t, pat)).toBe(401);
    expect(await alive(t, owner)).toBe(200);
    const [byOwner] = await audit(t, account, "two_factor.reset");
    expect(byOwner).toMatchObject({ target: "login pat", after: { sessions_ended: 1 } });

    // The operator resets the owner login's factor: the owner's sessions end.
    await enrolOn(t, owner);
    const byOperator = await call(t, "DELETE", `/admin/api/accounts/${account.username}/two-factor`, {
      headers: asKey(operator),
    });
    expect(byOperator.status, byOperator.text).toBe(200);
    expect(await alive(t, owner)).toBe(401);

    // An owner resetting its own factor from its session stays signed in there.
    const again = await signIn(t, account.username, account.password);
    const other = await signIn(t, account.username, account.password);
    await enrolOn(t, again);
    expect(await alive(t, other)).toBe(401);
    const third = await call(t, "POST", "/console/session", {
      json: { username: account.username, password: account.password },
    });
    expect(third.body.data.second_step).toBe("totp");
    const own = await callAs(t, again, "DELETE", `/api/v2/two-factor/logins/${account.username}`);
    expect(own.status, own.text).toBe(200);
    expect(await alive(t, again)).toBe(200);
  });
});
