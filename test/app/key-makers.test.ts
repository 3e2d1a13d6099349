// A key acts as the user who made it (decision 0140), through the real server on both engines: a
// developer's or an admin's key does no more than their session (no owner made, no user removed,
// no money moved), a lowered role narrows their keys at the next request, a removal revokes
// them, the key list names each key's maker and the role it acts with, and a caller revokes only a key that can do nothing
// it cannot. Keys made before (and the account's own) act as the owner, as they did.
import { beforeAll, expect, it } from "vitest";
import { addConsoleUser, callAs, type SignedIn } from "../helpers/console.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";

describeEachEngine("keys act as their maker", (engine) => {
  const gateway = useTestGateway(engine);
  let t: TestGateway;
  let account: TestAccount;
  let tiny: TestAccount;

  const asKey = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
  const withKey = (key: string, method: string, path: string, json?: unknown) =>
    call(t, method, path, { ...asKey(key), ...(json !== undefined ? { json } : {}) });
  const asOwner = (method: string, path: string, json?: unknown) => withKey(account.apiKey, method, path, json);

  async function keyOf(session: SignedIn, name: string, scopes?: string[]) {
    const made = await callAs(t, session, "POST", "/api/v2/keys", { json: { name, ...(scopes ? { scopes } : {}) } });
    expect(made.status, made.text).toBe(201);
    return made.body.data as { id: number; api_key: string; scopes: string[] };
  }

  async function keyList() {
    const list = await asOwner("GET", "/api/v2/keys");
    expect(list.status, list.text).toBe(200);
    return list.body.data as {
      id: number;
      prefix: string;
      name: string | null;
      created_by: string | null;
      maker_role: string | null;
    }[];
  }

  beforeAll(async () => {
    t = gateway();
    account = await buildAccount(t, { credits: { sms: 100 } });
    tiny = await buildAccount(t);
  });

  it("a developer's key manages no users and moves no money; an admin's makes or removes no owner", async () => {
    const dev = await addConsoleUser(t, account, "dev", "developer");
    const devKey = await keyOf(dev, "devkey");
    // Its scopes as made: all the developer may give.
    expect(devKey.scopes).toEqual(["send", "read", "manage"]);
    const evil = await withKey(devKey.api_key, "POST", "/api/v2/users", {
      login: "evil",
      user_role: "owner",
      password: "evil-password-1",
    });
    expect(evil.status, evil.text).toBe(403);
    expect(evil.body.error).toMatchObject({ code: "insufficient_role", user_role: "developer" });
    expect(evil.body.message).toContain("dev (whose API key this is)");
    const transfer = await withKey(devKey.api_key, "POST", "/api/v2/credits/transfer", {
      recipient_username: tiny.username,
      amount: 1,
    });
    expect(transfer.status, transfer.text).toBe(403);
    expect((await withKey(devKey.api_key, "DELETE", "/api/v2/users/dev")).status).toBe(403);
    // What a developer does, its key does.
    expect((await withKey(devKey.api_key, "GET", "/api/v2/messages")).status).toBe(200);
    expect((await withKey(devKey.api_key, "GET", "/api/v2/keys")).status).toBe(200);

    const owner2 = await asOwner("POST", "/api/v2/users", {
      login: "own2",
      user_role: "owner",
      password: "own2-password-1",
    });
    expect(owner2.status, owner2.text).toBe(201);
    const ann = await addConsoleUser(t, account, "ann", "admin");
    const annKey = await keyOf(ann, "annkey");
    const own3 = await withKey(annKey.api_key, "POST", "/api/v2/users", {
      login: "own3",
      user_role: "owner",
      password: "own3-password-1",
    });
    expect(own3.status, own3.text).toBe(403);
    expect(own3.body.message).toContain("Only the account's owner");
    expect((await withKey(annKey.api_key, "DELETE", "/api/v2/users/own2")).status).toBe(403);
    expect((await withKey(annKey.api_key, "PATCH", "/api/v2/users/own2", { user_role: "support" })).status).toBe(403);
    // An admin's key does what the admin does: users below owner, money.
    const sue = await withKey(annKey.api_key, "POST", "/api/v2/users", {
      login: "sue",
      user_role: "support",
      password: "sue-password-1",
    });
    expect(sue.status, sue.text).toBe(201);
    const moved = await withKey(annKey.api_key, "POST", "/api/v2/credits/transfer", {
      recipient_username: tiny.username,
      amount: 1,
    });
    expect(moved.status, moved.text).toBe(200);

    // The account's own key (no maker recorded) acts as the owner, as before.
    const byOwnerKey = await asOwner("POST", "/api/v2/users", {
      login: "own4",
      user_role: "owner",
      password: "own4-password-1",
    });
    expect(byOwnerKey.status, byOwnerKey.text).toBe(201);

    const keys = await keyList();
    expect(keys.find((key) => key.id === devKey.id)).toMatchObject({ created_by: "dev", maker_role: "developer" });
    expect(keys.find((key) => key.id === annKey.id)).toMatchObject({ created_by: "ann", maker_role: "admin" });
    const ownKey = keys.find((key) => key.prefix === account.apiKey.slice(0, 10));
    expect(ownKey).toMatchObject({ created_by: null, maker_role: "owner" });
    // The operator's list says the same.
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const listed = await withKey(operator.apiKey, "GET", `/admin/api/accounts/${account.username}/keys`);
    expect(listed.body.data.find((key: { id: number }) => key.id === annKey.id)).toMatchObject({ maker_role: "admin" });
    // A changed key is answered with it too.
    const renamed = await asOwner("PATCH", `/api/v2/keys/${annKey.id}`, { name: "ann's" });
    expect(renamed.body.data).toMatchObject({ name: "ann's", created_by: "ann", maker_role: "admin" });
  });

  it("a lowered role narrows its keys at the next request; a removal revokes them", async () => {
    const dev = await addConsoleUser(t, account, "dev2", "developer");
    const devKey = await keyOf(dev, "dev2key");
    const send = () =>
      withKey(devKey.api_key, "POST", "/api/v2/sms/send", {
        sender_id: "SWBRD",
        recipient: "9812349998",
        message: "from dev2's key",
      });
    expect((await send()).status).toBe(200);

    const lowered = await asOwner("PATCH", "/api/v2/users/dev2", { user_role: "support" });
    expect(lowered.status, lowered.text).toBe(200);
    expect((await keyList()).find((key) => key.id === devKey.id)?.maker_role).toBe("support");
    const refused = await send();
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe("insufficient_scope");
    // A support user reads, and so does their key; the legacy family holds it to read too.
    expect((await withKey(devKey.api_key, "GET", "/api/v2/messages")).status).toBe(200);
    const legacy = await call(
      t,
      "GET",
      `/httpapi/send?api_key=${devKey.api_key}&sender_id=SWBRD&phonenumber=9812349998&message=hi&route=T`,
    );
    expect(legacy.text.trim()).toBe("-7");

    const removed = await asOwner("DELETE", "/api/v2/users/dev2");
    expect(removed.status, removed.text).toBe(200);
    expect((await withKey(devKey.api_key, "GET", "/api/v2/balance")).status).toBe(401);
    const listed = (await keyList()).find((key) => key.id === devKey.id) as unknown as { revoked_at: string | null };
    expect(listed).toMatchObject({ revoked_at: expect.any(String), maker_role: null });
    const audit = await asOwner("GET", "/api/v2/audit?action=user.delete");
    const entry = (audit.body.data as Record<string, unknown>[]).find(
      (e) => e.target === `user dev2 of ${account.username}`,
    );
    expect(entry).toMatchObject({ after: { keys_revoked: [devKey.id] } });
  });

  it("revokes or changes only a key that can do nothing the caller cannot", async () => {
    const dev = await addConsoleUser(t, account, "dev3", "developer");
    const first = await keyOf(dev, "first");
    const second = await keyOf(dev, "second");
    const ownerKeyId = (await keyList()).find((key) => key.prefix === account.apiKey.slice(0, 10))!.id;

    const cut = await withKey(second.api_key, "DELETE", `/api/v2/keys/${ownerKeyId}`);
    expect(cut.status, cut.text).toBe(403);
    expect(cut.body.error.code).toMatch(/^insufficient_(role|scope)$/);
    expect((await callAs(t, dev, "DELETE", `/api/v2/keys/${ownerKeyId}`)).status).toBe(403);
    expect((await asOwner("GET", "/api/v2/balance")).status).toBe(200);

    // An admin's key with the developer's scopes still acts as the admin: not the developer's to revoke.
    const ann = await addConsoleUser(t, account, "ann3", "admin");
    const annKey = await keyOf(ann, "ann3key", ["send", "read", "manage"]);
    const annCut = await withKey(second.api_key, "DELETE", `/api/v2/keys/${annKey.id}`);
    expect(annCut.status, annCut.text).toBe(403);
    expect(annCut.body.error).toMatchObject({ code: "insufficient_role", user_role: "developer" });
    expect(annCut.body.message).toContain("manage");
    const annEdit = await withKey(second.api_key, "PATCH", `/api/v2/keys/${annKey.id}`, { name: "mine now" });
    expect(annEdit.status, annEdit.text).toBe(403);

    // The owner's send-only key can do nothing a developer cannot: the developer may revoke it.
    const sendOnly = await asOwner("POST", "/api/v2/keys", { name: "sender", scopes: ["send"] });
    expect(sendOnly.status, sendOnly.text).toBe(201);
    expect((await withKey(second.api_key, "DELETE", `/api/v2/keys/${sendOnly.body.data.id}`)).status).toBe(200);
    // Its own kind: the developer's other key.
    expect((await withKey(second.api_key, "DELETE", `/api/v2/keys/${first.id}`)).status).toBe(200);
    // An admin may revoke the owner's key (all but ownership); the owner's other key answers on.
    const spare = await asOwner("POST", "/api/v2/keys", { name: "spare" });
    expect((await withKey(annKey.api_key, "DELETE", `/api/v2/keys/${spare.body.data.id}`)).status).toBe(403);
    expect((await callAs(t, ann, "DELETE", `/api/v2/keys/${spare.body.data.id}`)).status).toBe(200);
  });
});
