// Issue 42's last items through the real server on both engines (decision 0132): a login's own
// password change (other sessions end, this one stays, the current password checked in the
// login locks), an invitation sent again (the old link dead, the new one mailed), a key's name,
// scopes and addresses edited (refused at its very next request, never beyond the editor's role,
// a bad range 400 naming its field), one actor_user rule for the owner login, and the audit
// entries of email domains and alert settings written with their change (and not without it).
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BOUNCE_DOMAIN, FakeRelay } from "../channels/email/helpers.js";
import { addConsoleUser, callAs, type SignedIn, signIn, signInUser, userPassword } from "../helpers/console.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../helpers/gateway.js";
import { totpCode } from "../helpers/totp.js";

describeEachEngine("teams and trust: own password, invitations again, keys edited, audit", (engine) => {
  const relay = new FakeRelay();
  let t: TestGateway;
  let account: TestAccount;
  let operator: TestAccount;
  let owner: SignedIn;

  beforeAll(async () => {
    await relay.start();
    t = await startTestGateway(engine, {
      env: { SMTP_URL: relay.url, SMTP_TLS_INSECURE: "1", EMAIL_BOUNCE_DOMAIN: BOUNCE_DOMAIN },
    });
    account = await buildAccount(t);
    operator = await buildAccount(t, { role: "operator", sender: null });
    owner = await signIn(t, account.username, account.password);
  });
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
    await relay.stop();
  });

  const asKey = (key: string) => ({ authorization: `Bearer ${key}` });
  const asOperator = () => asKey(operator.apiKey);

  /** The account's audit entries of one action, newest first. */
  async function entries(action: string, key = account.apiKey) {
    const response = await call(t, "GET", `/api/v2/audit?action=${action}`, { headers: asKey(key) });
    expect(response.status, response.text).toBe(200);
    return response.body.data as Record<string, unknown>[];
  }
  async function operatorEntries(action: string) {
    const response = await call(t, "GET", `/admin/api/audit?action=${action}`, { headers: asOperator() });
    expect(response.status, response.text).toBe(200);
    return response.body.data as Record<string, unknown>[];
  }

  it("changes a user's own password: the current one asked, other sessions ended, this one kept", async () => {
    const here = await addConsoleUser(t, account, "pat", "support");
    const elsewhere = await signInUser(t, account.username, "pat");

    const short = await callAs(t, here, "PUT", "/api/v2/password", {
      json: { current_password: userPassword("pat"), new_password: "short" },
    });
    expect(short.status).toBe(400);
    expect(short.body.error).toMatchObject({ code: "invalid_request", field: "new_password" });
    const wrong = await callAs(t, here, "PUT", "/api/v2/password", {
      json: { current_password: "not-the-password", new_password: "pw-pat-password-2" },
    });
    expect(wrong.status, wrong.text).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: "invalid_request", field: "current_password" });

    const changed = await callAs(t, here, "PUT", "/api/v2/password", {
      json: { current_password: userPassword("pat"), new_password: "pw-pat-password-2" },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toEqual({ login: "pat", sessions_ended: 1 });
    // This session stays signed in; the other one has ended; the old password no longer signs in.
    expect((await callAs(t, here, "GET", "/api/v2/sessions")).status).toBe(200);
    expect((await callAs(t, elsewhere, "GET", "/api/v2/sessions")).status).toBe(401);
    const old = await call(t, "POST", "/console/session", {
      json: { username: account.username, login: "pat", password: userPassword("pat") },
    });
    expect(old.status).toBe(401);
    await signInUser(t, account.username, "pat", "pw-pat-password-2");

    const [entry] = await entries("password.change");
    expect(entry).toMatchObject({
      actor: account.username,
      actor_user: "pat",
      channel: "console",
      target: `login pat of ${account.username}`,
      after: { password: "changed", sessions_ended: 1 },
    });
    expect(JSON.stringify(entry)).not.toMatch(/pat-password/);
  });

  it("changes the owner login's password, the account's: legacy logins take the new one", async () => {
    const other = await signIn(t, account.username, account.password);
    const changed = await callAs(t, owner, "PUT", "/api/v2/password", {
      json: { current_password: account.password, new_password: "pw-owner-password-2" },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toMatchObject({ login: account.username });
    expect(changed.body.data.sessions_ended).toBeGreaterThanOrEqual(1);
    expect((await callAs(t, owner, "GET", "/api/v2/balance")).status).toBe(200);
    expect((await callAs(t, other, "GET", "/api/v2/balance")).status).toBe(401);
    const legacy = (password: string) =>
      call(t, "GET", `/api/getcredits?username=${account.username}&password=${encodeURIComponent(password)}`);
    expect((await legacy(account.password)).text.trim()).toBe("-7");
    expect((await legacy("pw-owner-password-2")).text.trim()).toMatch(/^\d/);
    account.password = "pw-owner-password-2";
    const [entry] = await entries("password.change");
    // The owner login is named by the account's username.
    expect(entry).toMatchObject({
      actor_user: account.username,
      target: `login ${account.username} of ${account.username}`,
    });
  });

  it("sends an invitation again: a new link, mailed; the old one stops working; an active user is refused", async () => {
    const invited = await call(t, "POST", "/api/v2/users", {
      headers: asKey(account.apiKey),
      json: { login: "ivy", user_role: "support", email: "ivy@example.org" },
    });
    expect(invited.status, invited.text).toBe(201);
    const first = new URL(invited.body.data.invitation.url).searchParams.get("token")!;
    const mailsBefore = relay.received.length;

    const again = await callAs(t, owner, "POST", "/api/v2/users/ivy/invitation");
    expect(again.status, again.text).toBe(201);
    expect(again.body.data).toMatchObject({ login: "ivy", status: "invited", invitation: { emailed: true } });
    const url: string = again.body.data.invitation.url;
    const second = new URL(url).searchParams.get("token")!;
    expect(second).not.toBe(first);
    await expect.poll(() => relay.received.length).toBe(mailsBefore + 1);
    const mail = await simpleParser(relay.received.at(-1)!.raw);
    expect(mail.text).toContain(url);

    const oldLink = await call(t, "GET", `/console/invitation?token=${first}`);
    expect(oldLink.status).toBe(404);
    const accepted = await call(t, "POST", "/console/invitation", {
      json: { token: second, password: "pw-ivy-password-1" },
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect((await call(t, "GET", `/console/invitation?token=${second}`)).status).toBe(404);

    const active = await callAs(t, owner, "POST", "/api/v2/users/ivy/invitation");
    expect(active.status).toBe(409);
    expect((await callAs(t, owner, "POST", "/api/v2/users/nobody/invitation")).status).toBe(404);
    const [entry] = await entries("user.invite_resend");
    expect(entry).toMatchObject({ actor_user: account.username, target: `user ivy of ${account.username}` });

    // The operator's staff, the same way.
    const staff = await call(t, "POST", "/admin/api/staff", {
      headers: asOperator(),
      json: { login: "otto", user_role: "operator_support" },
    });
    expect(staff.status, staff.text).toBe(201);
    const staffAgain = await call(t, "POST", "/admin/api/staff/otto/invitation", { headers: asOperator() });
    expect(staffAgain.status, staffAgain.text).toBe(201);
    expect(staffAgain.body.data.invitation.url).not.toBe(staff.body.data.invitation.url);
  });

  it("edits a key's scopes and addresses: refused at its next request, audited before → after", async () => {
    const made = await callAs(t, owner, "POST", "/api/v2/keys", { json: { name: "reports" } });
    expect(made.status, made.text).toBe(201);
    const { id, api_key: key } = made.body.data;
    const send = () =>
      call(t, "POST", "/api/v2/sms/send", {
        headers: asKey(key),
        json: { sender_id: "SWBRD", recipient: "9876543210", message: "A report key tries to send" },
      });
    // Used once, so the key is in the caches before it is narrowed.
    const sent = await send();
    expect(sent.status, sent.text).toBeLessThan(300);
    expect((await call(t, "GET", "/api/v2/balance", { headers: asKey(key) })).status).toBe(200);

    const narrowed = await callAs(t, owner, "PATCH", `/api/v2/keys/${id}`, {
      json: { name: "read-only reports", scopes: ["read"] },
    });
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(narrowed.body.data).toMatchObject({ id, name: "read-only reports", scopes: ["read"], allowed_ips: null });
    const refused = await send();
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "insufficient_scope", needed_scope: "send" });
    expect((await call(t, "GET", "/api/v2/messages", { headers: asKey(key) })).status).toBe(200);

    const elsewhere = await callAs(t, owner, "PATCH", `/api/v2/keys/${id}`, {
      json: { allowed_ips: ["203.0.113.0/24", "2001:db8::/32"] },
    });
    expect(elsewhere.status, elsewhere.text).toBe(200);
    expect(elsewhere.body.data.allowed_ips).toEqual(["203.0.113.0/24", "2001:db8::/32"]);
    const away = await call(t, "GET", "/api/v2/messages", { headers: asKey(key) });
    expect(away.status).toBe(403);
    expect(away.body.error.code).toBe("address_not_allowed");
    const back = await callAs(t, owner, "PATCH", `/api/v2/keys/${id}`, { json: { allowed_ips: null } });
    expect(back.body.data.allowed_ips).toBeNull();
    expect((await call(t, "GET", "/api/v2/messages", { headers: asKey(key) })).status).toBe(200);

    for (const [json, status, field] of [
      [{ allowed_ips: ["10.0.0.0/33"] }, 400, "allowed_ips"],
      [{ allowed_ips: ["not an address"] }, 400, "allowed_ips"],
      [{ scopes: [] }, 400, "scopes"],
    ] as const) {
      const bad = await callAs(t, owner, "PATCH", `/api/v2/keys/${id}`, { json });
      expect(bad.status, bad.text).toBe(status);
      expect(bad.body.error).toMatchObject({ code: "invalid_request", field });
    }
    expect((await callAs(t, owner, "PATCH", `/api/v2/keys/${id}`, { json: {} })).status).toBe(400);
    expect((await callAs(t, owner, "PATCH", `/api/v2/keys/${id}`, { json: { scopes: ["all"] } })).status).toBe(400);

    const [entry] = await entries("key.limits");
    expect(entry).toMatchObject({
      action: "key.limits",
      target: `key ${id}`,
      actor_user: account.username,
      before: { allowed_ips: ["203.0.113.0/24", "2001:db8::/32"], scopes: ["read"] },
      after: { allowed_ips: null, scopes: ["read"] },
    });

    // Another account's key, an unknown and a revoked one: 404.
    const stranger = await buildAccount(t);
    expect(
      (await call(t, "PATCH", `/api/v2/keys/${id}`, { headers: asKey(stranger.apiKey), json: { name: "x" } })).status,
    ).toBe(404);
    expect((await callAs(t, owner, "PATCH", "/api/v2/keys/999999", { json: { name: "x" } })).status).toBe(404);
    await callAs(t, owner, "DELETE", `/api/v2/keys/${id}`);
    expect((await callAs(t, owner, "PATCH", `/api/v2/keys/${id}`, { json: { name: "x" } })).status).toBe(404);
  });

  it("keeps a key within its editor: a scoped key's own scopes, a developer's role", async () => {
    const dana = await addConsoleUser(t, account, "dana", "developer");
    const made = await callAs(t, dana, "POST", "/api/v2/keys", { json: { name: "dana's" } });
    expect(made.status, made.text).toBe(201);
    // A developer's key: every scope of the role, never billing.
    expect(made.body.data.scopes).toEqual(["send", "read", "manage"]);
    const beyond = await callAs(t, dana, "PATCH", `/api/v2/keys/${made.body.data.id}`, {
      json: { scopes: ["read", "billing"] },
    });
    expect(beyond.status, beyond.text).toBe(403);
    expect(beyond.body.error).toMatchObject({ code: "insufficient_role", field: "scopes" });
    const within = await callAs(t, dana, "PATCH", `/api/v2/keys/${made.body.data.id}`, { json: { scopes: ["read"] } });
    expect(within.status, within.text).toBe(200);

    const scoped = await call(t, "POST", "/api/v2/keys", {
      headers: asKey(account.apiKey),
      json: { scopes: ["read", "manage"] },
    });
    const widen = await call(t, "PATCH", `/api/v2/keys/${made.body.data.id}`, {
      headers: asKey(scoped.body.data.api_key),
      json: { scopes: ["send"] },
    });
    expect(widen.status, widen.text).toBe(403);
    expect(widen.body.error.code).toBe("insufficient_scope");

    // A key holding a scope its editor could not give is not the editor's to change, nor to revoke (decision 0140).
    const owners = await callAs(t, owner, "POST", "/api/v2/keys", { json: { name: "owner's billing" } });
    expect(owners.body.data.scopes).toContain("billing");
    const moved = await callAs(t, dana, "PATCH", `/api/v2/keys/${owners.body.data.id}`, {
      json: { scopes: ["read"], allowed_ips: ["198.51.100.7"] },
    });
    expect(moved.status, moved.text).toBe(403);
    expect(moved.body.error).toMatchObject({ code: "insufficient_role", user_role: "developer" });
    expect(moved.body.message).toContain('"billing"');
    const renamed = await callAs(t, dana, "PATCH", `/api/v2/keys/${owners.body.data.id}`, { json: { name: "mine" } });
    expect(renamed.status, renamed.text).toBe(403);
    const narrower = await call(t, "PATCH", `/api/v2/keys/${owners.body.data.id}`, {
      headers: asKey(scoped.body.data.api_key),
      json: { name: "narrowed by a narrower key" },
    });
    expect(narrower.status, narrower.text).toBe(403);
    expect(narrower.body.error.code).toBe("insufficient_scope");
    const listed = await callAs(t, owner, "GET", "/api/v2/keys");
    const still = listed.body.data.find((k: { id: number }) => k.id === owners.body.data.id);
    expect(still).toMatchObject({ name: "owner's billing", allowed_ips: null, revoked_at: null });
    expect(still.scopes).toContain("billing");
    expect((await callAs(t, dana, "DELETE", `/api/v2/keys/${owners.body.data.id}`)).status).toBe(403);
    expect((await callAs(t, owner, "DELETE", `/api/v2/keys/${owners.body.data.id}`)).status).toBe(200);
  });

  it("lets the operator change a key's rate, name, scopes and addresses", async () => {
    const keys = await call(t, "GET", `/admin/api/accounts/${account.username}/keys`, { headers: asOperator() });
    const live = keys.body.data.find((k: { revoked_at: string | null }) => k.revoked_at === null);
    const rate = await call(t, "PATCH", `/admin/api/keys/${live.id}`, {
      headers: asOperator(),
      json: { rate_limit: 0 },
    });
    expect(rate.body).toEqual({ status: "success", data: { id: live.id, rate_limit: 0 } });
    const limits = await call(t, "PATCH", `/admin/api/keys/${live.id}`, {
      headers: asOperator(),
      json: { name: "main", scopes: ["send", "read", "manage", "billing"], allowed_ips: ["127.0.0.1"] },
    });
    expect(limits.status, limits.text).toBe(200);
    expect(limits.body.data).toMatchObject({
      id: live.id,
      name: "main",
      scopes: ["send", "read", "manage", "billing"],
    });
    expect(limits.body.data.allowed_ips).toHaveLength(1);
    const bad = await call(t, "PATCH", `/admin/api/keys/${live.id}`, {
      headers: asOperator(),
      json: { allowed_ips: ["300.1.1.1"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request", field: "allowed_ips" });
    const [entry] = await operatorEntries("key.limits");
    expect(entry).toMatchObject({ channel: "operator_api", actor: operator.username, target: `key ${live.id}` });
    await call(t, "PATCH", `/admin/api/keys/${live.id}`, { headers: asOperator(), json: { allowed_ips: null } });
  });

  it("names the owner login the same way from a request's actor and from the two-factor routes", async () => {
    const started = await callAs(t, owner, "POST", "/console/two-factor", { json: {} });
    expect(started.status, started.text).toBe(201);
    const code = totpCode(started.body.data.secret, Date.now());
    const confirmed = await callAs(t, owner, "POST", "/console/two-factor/confirm", { json: { code } });
    expect(confirmed.status, confirmed.text).toBe(200);
    const [enrol] = await entries("two_factor.enrol");
    expect(enrol).toMatchObject({ actor_user: account.username, channel: "console" });
    await callAs(t, owner, "POST", "/api/v2/keys", { json: { name: "by the owner's session" } });
    const [key] = await entries("key.create");
    expect(key).toMatchObject({ channel: "console", actor_user: enrol?.actor_user });
    // An API key acts as the account, no login.
    await call(t, "POST", "/api/v2/keys", { headers: asKey(account.apiKey), json: { name: "by key" } });
    const [byKey] = await entries("key.create");
    expect(byKey).toMatchObject({ channel: "api", actor_user: null });
  });

  it("audits email domains and alert settings in their transaction, and not a refused change", async () => {
    const asked = await call(t, "POST", "/api/v2/email/domains", {
      headers: asKey(account.apiKey),
      json: { domain: "mail.acme-team.example" },
    });
    expect(asked.status, asked.text).toBe(201);
    const again = await call(t, "POST", "/api/v2/email/domains", {
      headers: asKey(account.apiKey),
      json: { domain: "mail.acme-team.example" },
    });
    expect(again.status).toBe(409);
    expect(await entries("email_domain.request")).toHaveLength(1);
    const approved = await call(
      t,
      "PUT",
      `/admin/api/accounts/${account.username}/email/domains/mail.acme-team.example`,
      { headers: asOperator(), json: { status: "approved" } },
    );
    expect(approved.status, approved.text).toBe(200);
    const [approval] = await entries("email_domain.approve");
    expect(approval).toMatchObject({
      target: "email domain mail.acme-team.example",
      before: { status: "pending" },
      after: { status: "approved" },
    });
    expect(JSON.stringify(approval)).not.toMatch(/PRIVATE KEY/);
    const removed = await call(t, "DELETE", "/api/v2/email/domains/mail.acme-team.example", {
      headers: asKey(account.apiKey),
    });
    expect(removed.status, removed.text).toBe(200);
    expect(await entries("email_domain.remove")).toHaveLength(1);

    const alerts = await call(t, "PUT", "/admin/api/alerts", {
      headers: asOperator(),
      json: { connector_down: { seconds: 120 } },
    });
    expect(alerts.status, alerts.text).toBe(200);
    const refused = await call(t, "PUT", "/admin/api/alerts", {
      headers: asOperator(),
      json: { delivery_rate: { percent: 0 } },
    });
    expect(refused.status).toBe(400);
    const changes = await operatorEntries("alerts.change");
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      actor: operator.username,
      before: { connector_down: { seconds: 60 } },
      after: { connector_down: { seconds: 120 } },
    });
    const threshold = await call(t, "PUT", `/admin/api/accounts/${account.username}/low-balance-threshold`, {
      headers: asOperator(),
      json: { threshold: 25 },
    });
    expect(threshold.status, threshold.text).toBe(200);
    const [set] = await entries("alerts.threshold");
    expect(set).toMatchObject({ before: { threshold: null }, after: { wallet: "sms", threshold: 25 } });

    const verified = await call(t, "GET", "/admin/api/audit/verify", { headers: asOperator() });
    expect(verified.body.data.broken).toBeNull();
  });
});
