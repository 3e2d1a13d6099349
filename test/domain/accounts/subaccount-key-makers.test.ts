// A sub-account's key made by one of its parent's users acts on the sub-account with that user's
// role as it is now (decision 0143), through the real server on both engines: a parent
// developer's key sends but adds no owner, moves no credits, changes no setting; an admin's adds
// users below owner; a lowered role narrows the key at its next request, a removal revokes it; a
// key made by the parent's owner login acts as the sub-account's owner, as it did. A key made by
// a user changes that user's own password, not the owner login's (PUT /api/v2/password), and
// lists and ends that user's console sessions (GET/DELETE /api/v2/sessions).
import { beforeAll, expect, it } from "vitest";
import { addConsoleUser, callAs, type SignedIn, userPassword } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { subAccount } from "../../helpers/resellers.js";

describeEachEngine("a parent's user's key for a sub-account", (engine) => {
  const gateway = useTestGateway(engine);
  let t: TestGateway;
  let parent: TestAccount;
  let sub: TestAccount;
  let sibling: TestAccount;

  const withKey = (key: string, method: string, path: string, json?: unknown) =>
    call(t, method, path, { headers: { authorization: `Bearer ${key}` }, ...(json !== undefined ? { json } : {}) });

  async function subKeyOf(session: SignedIn, name: string) {
    const made = await callAs(t, session, "POST", `/api/v2/subaccounts/${sub.username}/keys`, { json: { name } });
    expect(made.status, made.text).toBe(201);
    return made.body.data as { id: number; api_key: string; scopes: string[] };
  }

  async function subKeys() {
    const list = await withKey(sub.apiKey, "GET", "/api/v2/keys");
    expect(list.status, list.text).toBe(200);
    return list.body.data as { id: number; created_by: string | null; revoked_at: string | null }[];
  }

  const addOwner = (key: string, login: string) =>
    withKey(key, "POST", "/api/v2/users", { login, user_role: "owner", password: userPassword(login) });

  beforeAll(async () => {
    t = gateway();
    parent = await buildAccount(t, { credits: { sms: 100 } });
    sub = await subAccount(t, parent);
    sibling = await subAccount(t, parent);
  });

  it("a parent developer's key acts in the sub-account as a developer, not as its owner", async () => {
    const dev = await addConsoleUser(t, parent, "pdev", "developer");
    const key = await subKeyOf(dev, "from the parent's developer");
    expect(key.scopes).toEqual(["send", "read", "manage"]);

    const owner = await addOwner(key.api_key, "evil");
    expect(owner.status, owner.text).toBe(403);
    expect(owner.body.error).toMatchObject({ code: "insufficient_role", user_role: "developer" });
    expect(owner.body.message).toContain(`${parent.username}/pdev (whose API key this is)`);
    const moved = await withKey(key.api_key, "POST", "/api/v2/credits/transfer", {
      recipient_username: sibling.username,
      amount: 1,
    });
    expect(moved.status, moved.text).toBe(403);
    const settings = await withKey(key.api_key, "PUT", "/api/v2/two-factor/policy", { required: true });
    expect(settings.status, settings.text).toBe(403);
    expect(settings.body.error.code).toBe("insufficient_role");
    // What a developer does, the key does in the sub-account.
    const sent = await withKey(key.api_key, "POST", "/api/v2/sms/send", {
      sender_id: "SWBRD",
      recipient: "9812349998",
      message: "from the parent's developer",
    });
    expect(sent.status, sent.text).toBe(200);
    expect((await withKey(key.api_key, "GET", "/api/v2/keys")).status).toBe(200);
    // A key it makes in the sub-account is the developer's too.
    const again = await withKey(key.api_key, "POST", "/api/v2/keys", { name: "made by the key" });
    expect(again.status, again.text).toBe(201);
    expect((await addOwner(again.body.data.api_key, "evil2")).status).toBe(403);

    const listed = await subKeys();
    expect(listed.find((k) => k.id === key.id)?.created_by).toBe(`${parent.username}/pdev`);
    expect(listed.find((k) => k.id === again.body.data.id)?.created_by).toBe(`${parent.username}/pdev`);
    // The sub-account's owner is above a developer: it revokes the key.
    expect((await withKey(sub.apiKey, "DELETE", `/api/v2/keys/${again.body.data.id}`)).status).toBe(200);

    // Removed from the parent: every key they made, the sub-account's too, stops at once.
    const removed = await withKey(parent.apiKey, "DELETE", "/api/v2/users/pdev");
    expect(removed.status, removed.text).toBe(200);
    expect((await withKey(key.api_key, "GET", "/api/v2/balance")).status).toBe(401);
    expect((await subKeys()).find((k) => k.id === key.id)?.revoked_at).not.toBeNull();
  });

  it("an admin's key adds users below owner until the admin is lowered; the owner login's acts as the owner", async () => {
    const ann = await addConsoleUser(t, parent, "pann", "admin");
    const key = await subKeyOf(ann, "from the parent's admin");
    const sue = await withKey(key.api_key, "POST", "/api/v2/users", {
      login: "sue",
      user_role: "support",
      password: "sue-password-1",
    });
    expect(sue.status, sue.text).toBe(201);
    const owner = await addOwner(key.api_key, "evil3");
    expect(owner.status, owner.text).toBe(403);

    const lowered = await withKey(parent.apiKey, "PATCH", "/api/v2/users/pann", { user_role: "support" });
    expect(lowered.status, lowered.text).toBe(200);
    const refused = await withKey(key.api_key, "POST", "/api/v2/users", {
      login: "tom",
      user_role: "support",
      password: "tom-password-1",
    });
    expect(refused.status, refused.text).toBe(403);
    expect((await withKey(key.api_key, "GET", "/api/v2/messages")).status).toBe(200);

    // The parent's own key (its owner login) makes a key that acts as the sub-account's owner.
    const made = await withKey(parent.apiKey, "POST", `/api/v2/subaccounts/${sub.username}/keys`, { name: "owner's" });
    expect(made.status, made.text).toBe(201);
    const byOwner = await addOwner(made.body.data.api_key, "own2");
    expect(byOwner.status, byOwner.text).toBe(201);
    expect((await subKeys()).find((k) => k.id === made.body.data.id)?.created_by).toBe(parent.username);
  });

  it("a key made by a parent's user makes no keys for the sub-account's own sub-accounts", async () => {
    const dev = await addConsoleUser(t, parent, "pdev2", "developer");
    const key = await subKeyOf(dev, "deeper");
    const leaf = await withKey(sub.apiKey, "POST", "/api/v2/subaccounts", {
      username: `leaf_${engine}`,
      password: "leaf-password-1",
    });
    expect(leaf.status, leaf.text).toBe(201);
    const refused = await withKey(key.api_key, "POST", `/api/v2/subaccounts/leaf_${engine}/keys`, {});
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.message).toContain(`${parent.username}/pdev2`);
  });

  it("a user's key changes that user's own password, never the owner login's", async () => {
    const dev = await addConsoleUser(t, parent, "pwdev", "developer");
    const made = await callAs(t, dev, "POST", "/api/v2/keys", { json: { name: "pwdev's" } });
    expect(made.status, made.text).toBe(201);
    const key = made.body.data.api_key as string;
    // Made before the change, which ends every session of pwdev (a key keeps none).
    const subKey = await subKeyOf(dev, "pwdev's in the sub-account");
    // The owner's password is not the key's to change, even known.
    const asOwner = await withKey(key, "PUT", "/api/v2/password", {
      current_password: parent.password,
      new_password: "taken-over-1",
    });
    expect(asOwner.status, asOwner.text).toBe(400);
    expect(asOwner.body.error).toMatchObject({ code: "invalid_request", field: "current_password" });
    const changed = await withKey(key, "PUT", "/api/v2/password", {
      current_password: userPassword("pwdev"),
      new_password: "pw-pwdev-password-2",
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toMatchObject({ login: "pwdev" });
    const signIn = (login: string | undefined, password: string) =>
      call(t, "POST", "/console/session", {
        json: { username: parent.username, ...(login ? { login } : {}), password },
      });
    expect((await signIn("pwdev", "pw-pwdev-password-2")).status).toBe(201);
    expect((await signIn(undefined, parent.password)).status).toBe(201);
    expect((await signIn(undefined, "taken-over-1")).status).toBe(401);

    // A parent's user's key in the sub-account has no login there: refused, saying so.
    const refused = await withKey(subKey.api_key, "PUT", "/api/v2/password", {
      current_password: "pw-pwdev-password-2",
      new_password: "pw-pwdev-password-3",
    });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    expect(refused.body.message).toContain(parent.username);
  });

  it("a user's key lists and ends that user's console sessions, never the owner login's", async () => {
    const dev = await addConsoleUser(t, parent, "sesdev", "developer");
    const made = await callAs(t, dev, "POST", "/api/v2/keys", { json: { name: "sesdev's" } });
    expect(made.status, made.text).toBe(201);
    const key = made.body.data.api_key as string;
    const subKey = await subKeyOf(dev, "sesdev's in the sub-account");
    // The owner login signs in too: its session is not the developer's key's to see or end.
    const owner = await call(t, "POST", "/console/session", {
      json: { username: parent.username, password: parent.password },
    });
    expect(owner.status, owner.text).toBe(201);
    const ownerCookie = { cookie: (owner.headers.get("set-cookie") ?? "").split(";")[0] ?? "" };
    const ownSessions = async (headers: Record<string, string>) => {
      const list = await call(t, "GET", "/api/v2/sessions", { headers });
      expect(list.status, list.text).toBe(200);
      return (list.body.data as { id: number }[]).map((session) => session.id);
    };
    const devIds = await ownSessions({ cookie: dev.cookie });
    const ownerIds = await ownSessions(ownerCookie);
    expect(devIds.length).toBeGreaterThan(0);
    expect(await ownSessions({ authorization: `Bearer ${key}` })).toEqual(devIds);
    // Another login's session is not one of the key's: 404, and it stays.
    const notTheKeys = await withKey(key, "DELETE", `/api/v2/sessions/${ownerIds[0]}`);
    expect(notTheKeys.status, notTheKeys.text).toBe(404);
    const ended = await withKey(key, "DELETE", "/api/v2/sessions");
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body.data.ended).toBe(devIds.length);
    expect(await ownSessions(ownerCookie)).toEqual(ownerIds);
    expect((await call(t, "GET", "/api/v2/sessions", { headers: { cookie: dev.cookie } })).status).toBe(401);

    // A parent's user's key in the sub-account has no sessions there: none listed, none ended.
    expect(await ownSessions({ authorization: `Bearer ${subKey.api_key}` })).toEqual([]);
    const refused = await withKey(subKey.api_key, "DELETE", "/api/v2/sessions");
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
  });
});
