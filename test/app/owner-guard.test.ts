// Only an owner acts on an owner (decision 0126): an account's `admin` is refused every action aimed
// at an owner login with 403 `insufficient_role` and one message, through the real server on both
// engines. The audit (audit-sec, finding 1) found one that slipped through: sending an invited
// owner's invitation again answered the admin the new link, which set the owner's password.
import { afterAll, beforeAll, expect, it } from "vitest";
import { callAs, type SignedIn, signIn, signInUser, userPassword } from "../helpers/console.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../helpers/gateway.js";

const OWNER_ONLY = "Only the account's owner makes, changes or removes an owner.";

describeEachEngine("owner-directed actions by an admin", (engine) => {
  let t: TestGateway;
  let account: TestAccount;
  let owner: SignedIn;
  let admin: SignedIn;

  beforeAll(async () => {
    t = await startTestGateway(engine);
    account = await buildAccount(t);
    owner = await signIn(t, account.username, account.password);
    const added = await callAs(t, owner, "POST", "/api/v2/users", {
      json: { login: "adm", user_role: "admin", password: userPassword("adm") },
    });
    expect(added.status, added.text).toBe(201);
    admin = await signInUser(t, account.username, "adm");
  });
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
  });

  function expectOwnerOnly(response: { status: number; text: string; body: { message?: string; error?: unknown } }) {
    expect(response.status, response.text).toBe(403);
    expect(response.body.error).toMatchObject({ code: "insufficient_role" });
    expect(response.body.message).toBe(OWNER_ONLY);
  }

  it("refuses an admin a new invitation of an invited owner: no link, the owner's link still works", async () => {
    const invited = await callAs(t, owner, "POST", "/api/v2/users", {
      json: { login: "own4", user_role: "owner", email: "o4@example.org" },
    });
    expect(invited.status, invited.text).toBe(201);
    const ownersLink = new URL(invited.body.data.invitation.url).searchParams.get("token");

    const refused = await callAs(t, admin, "POST", "/api/v2/users/OWN4/invitation");
    expectOwnerOnly(refused);
    expect(refused.text).not.toMatch(/invitation\?token=/);
    // An admin's key acts as the admin (decision 0140): refused alike.
    const key = await callAs(t, admin, "POST", "/api/v2/keys", { json: { name: "adm key" } });
    expect(key.status, key.text).toBe(201);
    const byKey = await call(t, "POST", "/api/v2/users/own4/invitation", {
      headers: { authorization: `Bearer ${key.body.data.api_key}` },
    });
    expectOwnerOnly(byKey);
    // Nothing was written: the owner's own link still sets their password.
    const audit = await callAs(t, owner, "GET", "/api/v2/audit?action=user.invite_resend");
    expect(audit.body.data).toEqual([]);
    const accepted = await call(t, "POST", "/console/invitation", {
      json: { token: ownersLink, password: "pw-own4-password-1" },
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.data).toMatchObject({ login: "own4", user_role: "owner" });
  });

  it("still lets an admin send a new invitation to an invited non-owner, and an owner to an owner", async () => {
    const dev = await callAs(t, owner, "POST", "/api/v2/users", { json: { login: "dev9", user_role: "developer" } });
    expect(dev.status, dev.text).toBe(201);
    const again = await callAs(t, admin, "POST", "/api/v2/users/dev9/invitation");
    expect(again.status, again.text).toBe(201);
    expect(again.body.data.invitation.url).toMatch(/invitation\?token=/);

    const own = await callAs(t, owner, "POST", "/api/v2/users", { json: { login: "own5", user_role: "owner" } });
    expect(own.status, own.text).toBe(201);
    const byOwner = await callAs(t, owner, "POST", "/api/v2/users/own5/invitation");
    expect(byOwner.status, byOwner.text).toBe(201);
    // An unknown login is still 404, not a hint of the role.
    expect((await callAs(t, admin, "POST", "/api/v2/users/nobody/invitation")).status).toBe(404);
  });

  it("refuses an admin every other action aimed at an owner login, with the same answer", async () => {
    const added = await callAs(t, owner, "POST", "/api/v2/users", {
      json: { login: "boss", user_role: "owner", password: "pw-boss-password-1" },
    });
    expect(added.status, added.text).toBe(201);
    const asAdmin = (method: string, path: string, json?: unknown) =>
      callAs(t, admin, method, path, json === undefined ? {} : { json });
    expectOwnerOnly(await asAdmin("PATCH", "/api/v2/users/boss", { password: "x-pass-123" }));
    expectOwnerOnly(await asAdmin("PATCH", "/api/v2/users/boss", { email: "a@b.example" }));
    expectOwnerOnly(await asAdmin("DELETE", "/api/v2/users/boss"));
    expectOwnerOnly(await asAdmin("DELETE", "/api/v2/users/boss/sessions"));
    // A factor's reset, of a user who is an owner and of the account's own login.
    expectOwnerOnly(await asAdmin("DELETE", "/api/v2/two-factor/logins/boss"));
    expectOwnerOnly(await asAdmin("DELETE", `/api/v2/two-factor/logins/${account.username}`));
    expectOwnerOnly(
      await callAs(t, admin, "POST", "/api/v2/users", {
        json: { login: "boss3", user_role: "owner", password: "boss3-password-1" },
      }),
    );
    expectOwnerOnly(await callAs(t, admin, "PATCH", "/api/v2/users/adm", { json: { user_role: "owner" } }));
  });
});
