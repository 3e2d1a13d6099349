// An account's own API keys on v2, through the real server on both engines: a new key is
// shown once and works at once with the account's rate limit, the list never shows a key,
// a revoked key stops working at once, and another account's key cannot be revoked.
import { expect, it } from "vitest";
import { callAs, signIn } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("v2 API keys", (engine) => {
  const gateway = useTestGateway(engine);

  it("creates a key shown once, lists keys without it, and revokes it at once", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const auth = { authorization: `Bearer ${account.apiKey}` };
    const created = await call(t, "POST", "/api/v2/keys", { headers: auth, json: { name: "  billing server " } });
    expect(created.status, created.text).toBe(201);
    const key = created.body.data;
    expect(key).toMatchObject({ name: "billing server", rate_limit: 0 });
    expect(key.api_key).toMatch(/^sb_[\w-]{43}$/);
    expect(key.prefix).toBe(key.api_key.slice(0, 10));

    const withNew = await call(t, "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${key.api_key}` } });
    expect(withNew.status).toBe(200);

    const list = await call(t, "GET", "/api/v2/keys", { headers: auth });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(key.api_key);
    expect(list.text).not.toContain(account.apiKey);
    expect(list.body.data.map((k: { id: number }) => k.id)).toContain(key.id);
    expect(list.body.data.find((k: { id: number }) => k.id === key.id)).toMatchObject({
      name: "billing server",
      revoked_at: null,
    });

    const revoked = await call(t, "DELETE", `/api/v2/keys/${key.id}`, { headers: auth });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.data).toEqual({ id: key.id, revoked: true });
    const refused = await call(t, "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${key.api_key}` } });
    expect(refused.status).toBe(401);
    const again = await call(t, "DELETE", `/api/v2/keys/${key.id}`, { headers: auth });
    expect(again.status).toBe(404);
    const listed = await call(t, "GET", "/api/v2/keys", { headers: auth });
    expect(listed.body.data.find((k: { id: number }) => k.id === key.id).revoked_at).toMatch(/Z$/);
  });

  it("never revokes another account's key, refuses a bad body, and takes the operator's rate limit", async () => {
    const t = gateway();
    const owner = await buildAccount(t);
    const stranger = await buildAccount(t);
    const ownerKeys = await call(t, "GET", "/api/v2/keys", { headers: { "x-api-key": owner.apiKey } });
    const ownerKeyId = ownerKeys.body.data[0].id;
    for (const id of [String(ownerKeyId), "999999", "abc"]) {
      const answer = await call(t, "DELETE", `/api/v2/keys/${id}`, { headers: { "x-api-key": stranger.apiKey } });
      expect(answer.status, id).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
    }
    expect((await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": owner.apiKey } })).status).toBe(200);

    const unknown = await call(t, "POST", "/api/v2/keys", {
      headers: { "x-api-key": owner.apiKey },
      json: { name: "x", rate_limit: 0 },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("invalid_request");

    // The account's live key has the operator's rate (set here to 30): a new key gets the same.
    await t.db.store.db.updateTable("api_keys").set({ rate_limit: 30 }).where("id", "=", ownerKeyId).execute();
    const limited = await call(t, "POST", "/api/v2/keys", { headers: { "x-api-key": owner.apiKey } });
    expect(limited.status).toBe(201);
    expect(limited.body.data).toMatchObject({ rate_limit: 30, name: null });
  });

  it("works with a console session, which must carry its CSRF token", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const session = await signIn(t, account.username, account.password);
    const forged = await callAs(t, session, "POST", "/api/v2/keys", { json: {}, csrf: false });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe("csrf_rejected");
    const created = await callAs(t, session, "POST", "/api/v2/keys", { json: { name: "from the console" } });
    expect(created.status, created.text).toBe(201);
  });
});
