// Users and roles, and the sessions you can see, through the real server on both engines: users
// added with a password or by an invitation (mailed through the gateway's relay, accepted by its
// link), sign-in with a login, the session answer's user_role, a role change or removal ending
// the user's sessions, per-login locks, the operator's staff, the audit log naming the user.
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BOUNCE_DOMAIN, FakeRelay } from "../channels/email/helpers.js";
import { callAs, type SignedIn, signIn, signInUser } from "../helpers/console.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../helpers/gateway.js";

describeEachEngine("users and roles", (engine) => {
  const relay = new FakeRelay();
  let t: TestGateway;
  let account: TestAccount;
  let owner: SignedIn;

  beforeAll(async () => {
    await relay.start();
    t = await startTestGateway(engine, {
      env: {
        SMTP_URL: relay.url,
        SMTP_TLS_INSECURE: "1",
        EMAIL_BOUNCE_DOMAIN: BOUNCE_DOMAIN,
        LOGIN_LOCK_THRESHOLD: "3",
      },
    });
    account = await buildAccount(t);
    owner = await signIn(t, account.username, account.password);
  });
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
    await relay.stop();
  });

  const addUser = (json: Record<string, unknown>, as: SignedIn = owner) =>
    callAs(t, as, "POST", "/api/v2/users", { json });

  it("keeps the owner login: no login, or the username, signs in as owner", async () => {
    const current = await callAs(t, owner, "GET", "/console/session");
    expect(current.body.data).toMatchObject({ role: "customer", login: account.username, user_role: "owner" });
    const named = await signInUser(t, account.username, account.username.toUpperCase(), account.password);
    const again = await callAs(t, named, "GET", "/console/session");
    expect(again.body.data.user_role).toBe("owner");
  });

  it("adds a user with a password who signs in with their login and role", async () => {
    const added = await addUser({
      login: "Dev1",
      user_role: "developer",
      password: "pw-developer-1",
      display_name: "Dee",
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.data).toMatchObject({
      login: "dev1",
      user_role: "developer",
      status: "active",
      display_name: "Dee",
    });
    expect(added.body.data.invitation).toBeUndefined();

    const dev = await signInUser(t, account.username, "DEV1", "pw-developer-1");
    const current = await callAs(t, dev, "GET", "/console/session");
    expect(current.body.data).toMatchObject({
      username: account.username,
      role: "customer",
      login: "dev1",
      user_role: "developer",
    });
    // A developer sends and reads; it does not manage users.
    expect((await callAs(t, dev, "GET", "/api/v2/balance")).status).toBe(200);
    const refused = await callAs(t, dev, "GET", "/api/v2/users");
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("insufficient_role");
    expect(refused.body.message).toMatch(/developer/);

    const list = await callAs(t, owner, "GET", "/api/v2/users");
    expect(list.body.data.map((u: { login: string }) => u.login)).toContain("dev1");
    expect(list.text).not.toMatch(/argon2|password_hash/);
  });

  it("refuses bad users in v2's dialect: role, login, duplicate, the owner's own login, short password", async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ login: "x1", user_role: "operator_admin", password: "pw-long-enough" }, 400, "user_role"],
      [{ login: "bad login", user_role: "support", password: "pw-long-enough" }, 400, "login"],
      [{ login: "dev1", user_role: "support", password: "pw-long-enough" }, 409, "login"],
      [{ login: account.username, user_role: "support", password: "pw-long-enough" }, 409, "login"],
      [{ login: "short", user_role: "support", password: "short" }, 400, "password"],
      [{ login: "mail", user_role: "support", email: "not-an-email" }, 400, "email"],
    ];
    for (const [json, status, field] of cases) {
      const response = await addUser(json);
      expect(response.status, response.text).toBe(status);
      expect(response.body.error.field).toBe(field);
    }
    const unknownField = await addUser({ login: "x2", user_role: "support", role: "admin" });
    expect(unknownField.status).toBe(400);
  });

  it("invites by link: mailed through the gateway's relay, shown once, accepted once", async () => {
    const added = await addUser({ login: "sue", user_role: "support", email: "sue@example.org" });
    expect(added.status, added.text).toBe(201);
    expect(added.body.data).toMatchObject({ status: "invited", user_role: "support" });
    const { url, emailed } = added.body.data.invitation;
    expect(emailed).toBe(true);
    expect(url).toMatch(/\/invitation\?token=[\w-]{43}$/);
    await expect.poll(() => relay.received.length).toBeGreaterThan(0);
    const mail = await simpleParser(relay.received.at(-1)!.raw);
    expect(mail.to).toMatchObject({ text: "sue@example.org" });
    expect(mail.text).toContain(url);
    const token = new URL(url).searchParams.get("token")!;

    // Before accepting, the user cannot sign in.
    const early = await call(t, "POST", "/console/session", {
      json: { username: account.username, login: "sue", password: "anything-at-all" },
    });
    expect(early.status).toBe(401);
    const seen = await call(t, "GET", `/console/invitation?token=${token}`);
    expect(seen.body.data).toMatchObject({ account: account.username, login: "sue", user_role: "support" });
    const accepted = await call(t, "POST", "/console/invitation", { json: { token, password: "pw-support-1" } });
    expect(accepted.status, accepted.text).toBe(200);
    const reused = await call(t, "POST", "/console/invitation", { json: { token, password: "pw-support-2" } });
    expect(reused.status).toBe(404);

    const sue = await signInUser(t, account.username, "sue", "pw-support-1");
    expect((await callAs(t, sue, "GET", "/api/v2/messages")).status).toBe(200);
    const send = await callAs(t, sue, "POST", "/api/v2/sms/send", {
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "no" },
    });
    expect(send.status).toBe(403);
    expect(send.body.error.code).toBe("insufficient_role");
  });

  it("a role change ends the user's sessions; the user sees and ends their own", async () => {
    await addUser({ login: "bill", user_role: "billing", password: "pw-billing-1" });
    const first = await signInUser(t, account.username, "bill", "pw-billing-1");
    const second = await signInUser(t, account.username, "bill", "pw-billing-1");
    const third = await signInUser(t, account.username, "bill", "pw-billing-1");

    const listed = await callAs(t, second, "GET", "/api/v2/sessions");
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data).toHaveLength(3);
    expect(listed.body.data.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({ address: "127.0.0.1", device: expect.any(String) });
    // The owner's own list does not show the user's.
    const owners = await callAs(t, owner, "GET", "/api/v2/sessions");
    expect(
      owners.body.data.every((s: { id: number }) => !listed.body.data.some((l: { id: number }) => l.id === s.id)),
    ).toBe(true);

    const firstId = listed.body.data.find((s: { current: boolean }) => !s.current).id;
    expect((await callAs(t, second, "DELETE", `/api/v2/sessions/${firstId}`)).body.data).toEqual({ ended: 1 });
    // Another's session is not found, as an unknown one.
    const ownersId = owners.body.data[0].id;
    expect((await callAs(t, second, "DELETE", `/api/v2/sessions/${ownersId}`)).status).toBe(404);
    const others = await callAs(t, second, "DELETE", "/api/v2/sessions");
    expect(others.body.data.ended).toBeGreaterThanOrEqual(1);
    expect((await callAs(t, second, "GET", "/api/v2/sessions")).body.data).toHaveLength(1);
    expect((await callAs(t, first, "GET", "/api/v2/balance")).status).toBe(401);
    expect((await callAs(t, third, "GET", "/api/v2/balance")).status).toBe(401);

    const changed = await callAs(t, owner, "PATCH", "/api/v2/users/bill", { json: { user_role: "support" } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.user_role).toBe("support");
    expect((await callAs(t, second, "GET", "/api/v2/balance")).status).toBe(401);
    const back = await signInUser(t, account.username, "bill", "pw-billing-1");
    expect((await callAs(t, back, "GET", "/console/session")).body.data.user_role).toBe("support");

    // The owner ends all of a user's sessions; a removed user signs in no more.
    expect((await callAs(t, owner, "DELETE", "/api/v2/users/bill/sessions")).body.data).toEqual({ ended: 1 });
    const again = await signInUser(t, account.username, "bill", "pw-billing-1");
    expect((await callAs(t, owner, "DELETE", "/api/v2/users/bill")).status).toBe(200);
    expect((await callAs(t, again, "GET", "/api/v2/balance")).status).toBe(401);
    const gone = await call(t, "POST", "/console/session", {
      json: { username: account.username, login: "bill", password: "pw-billing-1" },
    });
    expect(gone.status).toBe(401);
  });

  it("an admin manages users but not ownership; the audit log names the user who acted", async () => {
    await addUser({ login: "ada", user_role: "admin", password: "pw-admin-123" });
    const ada = await signInUser(t, account.username, "ada", "pw-admin-123");
    const made = await addUser({ login: "dave", user_role: "developer", password: "pw-dave-123" }, ada);
    expect(made.status).toBe(201);
    const owned = await addUser({ login: "own2", user_role: "owner", password: "pw-owner-123" }, ada);
    expect(owned.status).toBe(403);
    expect(owned.body.error.code).toBe("insufficient_role");
    const byOwner = await addUser({ login: "own2", user_role: "owner", password: "pw-owner-123" });
    expect(byOwner.status).toBe(201);
    expect((await callAs(t, ada, "PATCH", "/api/v2/users/own2", { json: { user_role: "support" } })).status).toBe(403);

    const audit = await callAs(t, owner, "GET", "/api/v2/audit?action=user.create");
    const byAda = audit.body.data.find((e: { target: string }) => e.target.startsWith("user dave"));
    expect(byAda).toMatchObject({ actor: account.username, actor_user: "ada", channel: "console" });
    const roleChanges = await callAs(t, owner, "GET", "/api/v2/audit?action=user.role_change");
    expect(roleChanges.body.data[0]).toMatchObject({ actor_user: account.username, before: { user_role: "billing" } });
  });

  it("ends an owner's sessions only by an owner: an admin is refused as for every owner-directed action", async () => {
    await addUser({ login: "boss2", user_role: "owner", password: "pw-boss2-123" });
    await addUser({ login: "adm2", user_role: "admin", password: "pw-adm2-123" });
    const boss = await signInUser(t, account.username, "boss2", "pw-boss2-123");
    const adm = await signInUser(t, account.username, "adm2", "pw-adm2-123");
    const refused = await callAs(t, adm, "DELETE", "/api/v2/users/BOSS2/sessions");
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe("insufficient_role");
    expect(refused.body.message).toBe("Only the account's owner makes, changes or removes an owner.");
    expect((await callAs(t, boss, "GET", "/console/session")).status).toBe(200);
    // An admin's key acts as the admin (decision 0140): refused alike.
    const made = await callAs(t, adm, "POST", "/api/v2/keys", { json: { name: "adm2 key" } });
    expect(made.status, made.text).toBe(201);
    const byKey = await call(t, "DELETE", "/api/v2/users/boss2/sessions", {
      headers: { authorization: `Bearer ${made.body.data.api_key}` },
    });
    expect(byKey.status, byKey.text).toBe(403);
    // An unknown login is still 404, not a hint of the role.
    expect((await callAs(t, adm, "DELETE", "/api/v2/users/nobody/sessions")).status).toBe(404);
    // The admin ends their own sessions; the owner ends another owner's.
    expect((await callAs(t, adm, "DELETE", "/api/v2/users/adm2/sessions")).body.data).toEqual({ ended: 1 });
    expect((await callAs(t, owner, "DELETE", "/api/v2/users/boss2/sessions")).body.data).toEqual({ ended: 1 });
    expect((await callAs(t, boss, "GET", "/console/session")).status).toBe(401);
    const audit = await callAs(t, owner, "GET", "/api/v2/audit?action=session.end");
    expect(audit.body.data[0]).toMatchObject({ target: "sessions of boss2", actor_user: account.username });
  });

  it("locks a user's login after failures without locking the owner or other users", async () => {
    await addUser({ login: "lockme", user_role: "support", password: "pw-lockme-1" });
    for (let i = 0; i < 3; i++) {
      const wrong = await call(t, "POST", "/console/session", {
        json: { username: account.username, login: "lockme", password: "wrong-password" },
      });
      expect(wrong.status).toBe(401);
    }
    const locked = await call(t, "POST", "/console/session", {
      json: { username: account.username, login: "lockme", password: "pw-lockme-1" },
    });
    expect(locked.status).toBe(403);
    expect(locked.body.error.code).toBe("account_locked");
    await signIn(t, account.username, account.password);
    await signInUser(t, account.username, "ada", "pw-admin-123");

    // The operator sees the lock under `<login> <address>` and clears it.
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const key = { authorization: `Bearer ${operator.apiKey}` };
    const locks = await call(t, "GET", "/admin/api/login-locks", { headers: key });
    expect(locks.body.data).toContainEqual(
      expect.objectContaining({ username: account.username, address: "lockme 127.0.0.1" }),
    );
    const cleared = await call(
      t,
      "DELETE",
      `/admin/api/accounts/${account.username}/login-locks?address=${encodeURIComponent("lockme 127.0.0.1")}`,
      { headers: key },
    );
    expect(cleared.status, cleared.text).toBe(200);
    await signInUser(t, account.username, "lockme", "pw-lockme-1");
  });

  it("the operator's staff: added through /admin/api/staff, support reads and changes nothing, finance puts a price card on an account and changes nothing else", async () => {
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const key = { authorization: `Bearer ${operator.apiKey}` };
    const wrongRole = await call(t, "POST", "/admin/api/staff", {
      headers: key,
      json: { login: "x", user_role: "support" },
    });
    expect(wrongRole.status).toBe(400);
    const added = await call(t, "POST", "/admin/api/staff", {
      headers: key,
      json: { login: "olga", user_role: "operator_support", password: "pw-olga-123" },
    });
    expect(added.status, added.text).toBe(201);
    const staff = await call(t, "GET", "/admin/api/staff", { headers: key });
    expect(staff.body.data).toEqual([expect.objectContaining({ login: "olga", user_role: "operator_support" })]);

    const olga = await signInUser(t, operator.username, "olga", "pw-olga-123");
    expect((await callAs(t, olga, "GET", "/console/session")).body.data).toMatchObject({
      role: "operator",
      user_role: "operator_support",
    });
    expect((await callAs(t, olga, "GET", "/admin/api/accounts")).status).toBe(200);
    const topUp = await callAs(t, olga, "POST", `/admin/api/accounts/${account.username}/credits`, {
      json: { wallet: "sms", amount: 5 },
    });
    expect(topUp.status).toBe(403);
    expect(topUp.body.error.code).toBe("insufficient_role");
    const supportPrices = await callAs(t, olga, "PATCH", `/admin/api/accounts/${account.username}`, {
      json: { price_card: "default" },
    });
    expect(supportPrices.status).toBe(403);
    expect(supportPrices.body.message).toContain("(it needs staff_admin)");

    const promoted = await call(t, "PATCH", "/admin/api/staff/olga", {
      headers: key,
      json: { user_role: "operator_finance" },
    });
    expect(promoted.status).toBe(200);
    const fin = await signInUser(t, operator.username, "olga", "pw-olga-123");
    const paid = await callAs(t, fin, "POST", `/admin/api/accounts/${account.username}/credits`, {
      json: { wallet: "sms", amount: 5 },
    });
    expect(paid.status, paid.text).toBe(200);
    const blocked = await callAs(t, fin, "PATCH", `/admin/api/accounts/${account.username}`, {
      json: { status: "blocked" },
    });
    expect(blocked.status).toBe(403);
    expect(blocked.body.message).toContain("it needs staff_admin");
    // Finance writes price cards and puts one on an account: price_card alone, nothing else.
    const card = await callAs(t, fin, "PUT", "/admin/api/price-cards/finance", {
      json: { rows: [{ channel: "sms", route: "*", prefix: "91", price: 0.25 }] },
    });
    expect(card.status, card.text).toBe(200);
    const priced = await callAs(t, fin, "PATCH", `/admin/api/accounts/${account.username}`, {
      json: { price_card: "finance" },
    });
    expect(priced.status, priced.text).toBe(200);
    expect(priced.body.data.price_card).toBe("finance");
    const more = await callAs(t, fin, "PATCH", `/admin/api/accounts/${account.username}`, {
      json: { price_card: "default", status: "blocked" },
    });
    expect(more.status).toBe(403);
    expect(more.body.error).toMatchObject({ code: "insufficient_role" });
    expect(more.body.message).toContain("it needs staff_admin; operator_finance may change price_card alone");
    const shown = await call(t, "GET", `/admin/api/accounts/${account.username}`, { headers: key });
    expect(shown.body.data).toMatchObject({ price_card: "finance", status: "active" });
    const log = await call(t, "GET", `/admin/api/audit?account=${account.username}&limit=1`, { headers: key });
    expect(log.body.data[0]).toMatchObject({
      action: "account.price_card",
      actor: operator.username,
      actor_user: "olga",
      after: { price_card: "finance" },
    });
    expect((await call(t, "DELETE", "/admin/api/staff/olga", { headers: key })).status).toBe(200);
    expect((await callAs(t, fin, "GET", "/admin/api/accounts")).status).toBe(401);
  });
});
