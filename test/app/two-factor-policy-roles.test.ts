// Who may weaken the account's "require two-factor for every login" (decision 0182), through the
// real server on both engines: the owner turns it off; an admin turns it on but is refused turning
// it off (403 insufficient_role, v2's error body, the setting unchanged, nothing in the audit log),
// by session and by the admin's key; a member below admin is refused both; the operator's key for
// the account acts as its owner and turns it off; a parent's admin's key for a sub-account acts as
// an admin. Each change is one `two_factor.policy` entry naming who made it.
import { afterAll, beforeAll, expect, it } from "vitest";
import { addConsoleUser, callAs, type SignedIn, signIn, signInUser, userPassword } from "../helpers/console.js";
import { describeEachEngine } from "../helpers/engines.js";
import {
  buildAccount,
  call,
  type JsonResponse,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "../helpers/gateway.js";
import { subAccount } from "../helpers/resellers.js";

const POLICY = "/api/v2/two-factor/policy";

describeEachEngine("who turns the account's two-factor requirement off", (engine) => {
  let t: TestGateway;
  let account: TestAccount;
  let operator: TestAccount;
  let owner: SignedIn;
  let admin: SignedIn;
  let developer: SignedIn;
  let support: SignedIn;
  let adminKey: string;

  async function addAndSignIn(login: string, role: string): Promise<SignedIn> {
    const added = await callAs(t, owner, "POST", "/api/v2/users", {
      json: { login, user_role: role, password: userPassword(login) },
    });
    expect(added.status, added.text).toBe(201);
    return signInUser(t, account.username, login);
  }

  const put = (who: SignedIn, required: unknown) => callAs(t, who, "PUT", POLICY, { json: { required } });
  const withKey = (key: string, required: unknown) =>
    call(t, "PUT", POLICY, { headers: { authorization: `Bearer ${key}` }, json: { required } });
  const setting = async () => {
    const read = await call(t, "GET", POLICY, { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(read.status, read.text).toBe(200);
    return read.body.data.required as boolean;
  };
  const entries = async () => {
    const read = await callAs(t, owner, "GET", "/api/v2/audit?action=two_factor.policy");
    expect(read.status, read.text).toBe(200);
    return (read.body.data as Array<{ actor_user: string | null; before: unknown; after: unknown }>).map((e) => ({
      actor_user: e.actor_user,
      before: e.before,
      after: e.after,
    }));
  };
  function expectOwnersOnly(response: JsonResponse, role: string) {
    expect(response.status, response.text).toBe(403);
    expect(response.body.status).toBe("error");
    expect(response.body.error).toMatchObject({ code: "insufficient_role", field: "required", user_role: role });
    expect(response.body.message).toBe(
      `Only the account's owner stops requiring two-factor sign-in; the role ${role} may require it, not turn it off.`,
    );
  }

  beforeAll(async () => {
    t = await startTestGateway(engine);
    account = await buildAccount(t);
    operator = await buildAccount(t, { role: "operator", sender: null });
    // Every session is opened before the account requires a factor (a session stays open).
    owner = await signIn(t, account.username, account.password);
    admin = await addAndSignIn("adm", "admin");
    developer = await addAndSignIn("dev", "developer");
    support = await addAndSignIn("sup", "support");
    const key = await callAs(t, admin, "POST", "/api/v2/keys", { json: { name: "admin's key" } });
    expect(key.status, key.text).toBe(201);
    adminKey = key.body.data.api_key;
  });
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
  });

  it("lets an admin turn it on, refuses the admin turning it off, and lets the owner turn it off", async () => {
    const on = await put(admin, true);
    expect(on.status, on.text).toBe(200);
    expect(on.body.data).toEqual({ required: true, in_force: true, required_by: "account" });

    expectOwnersOnly(await put(admin, false), "admin");
    // The admin's key acts as the admin (decision 0140).
    expectOwnersOnly(await withKey(adminKey, false), "admin");
    expect(await setting()).toBe(true);
    // A new sign-in is still asked to enrol.
    const signing = await call(t, "POST", "/console/session", {
      json: { username: account.username, password: account.password },
    });
    expect(signing.status, signing.text).toBe(200);
    expect(signing.body.data.second_step).toBe("enrol");
    // Asking for what is set already changes nothing, and is no refusal.
    expect((await put(admin, true)).status).toBe(200);

    const off = await put(owner, false);
    expect(off.status, off.text).toBe(200);
    expect(off.body.data).toEqual({ required: false, in_force: false, required_by: null });
    expect(await setting()).toBe(false);
    // Off already: an admin's "off" is no change, not a refusal.
    const offAgain = await put(admin, false);
    expect(offAgain.status, offAgain.text).toBe(200);
    expect(offAgain.body.data.required).toBe(false);

    // One entry per change, naming who made it; the refusals wrote none.
    expect(await entries()).toEqual([
      { actor_user: account.username, before: { required: true }, after: { required: false } },
      { actor_user: "adm", before: { required: false }, after: { required: true } },
    ]);
  });

  it("refuses a developer and a support user either way, the setting unchanged", async () => {
    expect((await put(owner, true)).status).toBe(200);
    for (const [who, role] of [
      [developer, "developer"],
      [support, "support"],
    ] as const) {
      for (const required of [false, true]) {
        const refused = await put(who, required);
        expect(refused.status, refused.text).toBe(403);
        expect(refused.body.error).toMatchObject({ code: "insufficient_role", user_role: role });
      }
    }
    expect(await setting()).toBe(true);
    expect((await put(owner, false)).status).toBe(200);
  });

  it("lets the operator's key for the account (the owner's, decision 0140) turn it off", async () => {
    expect((await put(admin, true)).status).toBe(200);
    const made = await call(t, "POST", `/admin/api/accounts/${account.username}/keys`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { name: "the operator's" },
    });
    expect(made.status, made.text).toBe(201);
    const off = await withKey(made.body.data.api_key, false);
    expect(off.status, off.text).toBe(200);
    expect(await setting()).toBe(false);
  });

  it("lets a parent's admin's key require it of a sub-account, not stop requiring it (decision 0143)", async () => {
    const parent = await buildAccount(t, { credits: { sms: 100 } });
    const sub = await subAccount(t, parent);
    const session = await addConsoleUser(t, parent, "padm", "admin");
    const made = await callAs(t, session, "POST", `/api/v2/subaccounts/${sub.username}/keys`, { json: { name: "p" } });
    expect(made.status, made.text).toBe(201);
    const key = made.body.data.api_key as string;
    expect((await withKey(key, true)).status).toBe(200);
    expectOwnersOnly(await withKey(key, false), "admin");
    const read = await call(t, "GET", POLICY, { headers: { authorization: `Bearer ${sub.apiKey}` } });
    expect(read.body.data.required).toBe(true);
    expect((await withKey(sub.apiKey, false)).status).toBe(200);
  });

  it("answers a bad value in v2's dialect, for the admin as for the owner", async () => {
    for (const who of [admin, owner]) {
      for (const required of ["no", null, 0]) {
        const bad = await put(who, required);
        expect(bad.status, bad.text).toBe(400);
        expect(bad.body.status).toBe("error");
      }
      const empty = await callAs(t, who, "PUT", POLICY, { json: {} });
      expect(empty.status, empty.text).toBe(400);
    }
  });
});
