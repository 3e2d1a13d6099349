import { describe, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("v2 API key authentication", (engine) => {
  const gateway = useTestGateway(engine);

  it("accepts the key as Bearer, X-API-Key and query api_key", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 250 } });
    const placements: Array<{ path: string; headers: Record<string, string> }> = [
      { path: "/api/v2/balance", headers: { authorization: `Bearer ${account.apiKey}` } },
      { path: "/api/v2/balance", headers: { "x-api-key": account.apiKey } },
      { path: `/api/v2/balance?api_key=${encodeURIComponent(account.apiKey)}`, headers: {} },
    ];
    for (const placement of placements) {
      const response = await call(t, "GET", placement.path, { headers: placement.headers });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ success: true, data: { balance: 250, currency: "credits" } });
      expect(response.body.data.last_updated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
  });

  it("accepts api_key in a JSON body", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const response = await call(t, "POST", "/api/v2/sms/send", {
      json: { api_key: account.apiKey, sender_id: "SWBRD", recipient: "9876543210", message: "hello" },
    });
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
  });

  it("removes api_key from a JSON body sent beside a header or query key", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    // SDKs that always put the key in the body and send a header too: the header's key is used and
    // the body's field is not an unknown field (it was refused with 400 invalid_request before).
    const send = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { api_key: account.apiKey, sender_id: "SWBRD", recipient: "9876543210", message: "hello" },
    });
    expect(send.status).toBe(200);
    expect(send.body.success).toBe(true);
    const withQuery = await call(t, "POST", `/api/v2/sms/send?api_key=${encodeURIComponent(account.apiKey)}`, {
      json: { api_key: "sb_not-this-one", sender_id: "SWBRD", recipient: "9876543210", message: "hello" },
    });
    expect(withQuery.status).toBe(200);
    const balance = await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": account.apiKey } });
    expect(balance.body.data.balance).toBe(8);
  });

  it("answers 401 in the v2 envelope for a missing, wrong or revoked key", async () => {
    const t = gateway();
    const missing = await call(t, "GET", "/api/v2/balance");
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ success: false, error: { code: "unauthorized" } });
    expect(missing.body.message).toMatch(/API key/);
    expect(missing.headers.get("x-request-id")).toBe(missing.body.error.request_id);

    const wrong = await call(t, "GET", "/api/v2/balance", { headers: { authorization: "Bearer sb_not-a-real-key" } });
    expect(wrong.status).toBe(401);
    const wrongBody = await call(t, "POST", "/api/v2/sms/send", {
      json: { api_key: "sb_wrong", recipient: "9876543210" },
    });
    expect(wrongBody.status).toBe(401);

    const account = await buildAccount(t);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const admin = { authorization: `Bearer ${operator.apiKey}` };
    const keys = await call(t, "GET", `/admin/api/accounts/${account.username}/keys`, { headers: admin });
    expect(keys.status).toBe(200);
    const keyId = keys.body.data[0].id;
    const before = await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": account.apiKey } });
    expect(before.status).toBe(200);
    const revoked = await call(t, "DELETE", `/admin/api/keys/${keyId}`, { headers: admin });
    expect(revoked.status).toBe(200);
    const after = await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": account.apiKey } });
    expect(after.status).toBe(401);
    const again = await call(t, "DELETE", `/admin/api/keys/${keyId}`, { headers: admin });
    expect(again.status).toBe(404);
  });

  it("scopes every answer to the key's own account", async () => {
    const t = gateway();
    const a = await buildAccount(t, { credits: { sms: 10 } });
    const b = await buildAccount(t, { credits: { sms: 20 } });
    const ra = await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": a.apiKey } });
    const rb = await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": b.apiKey } });
    expect(ra.body.data.balance).toBe(10);
    expect(rb.body.data.balance).toBe(20);
  });

  it("refuses a customer key on the operator API", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const response = await call(t, "GET", "/admin/api/accounts", {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ status: "error", error: { code: "operator_only" } });
  });

  // On the same gateway (other accounts: nothing of the tests above is read).
  describe("legacy credentials (getcredits)", () => {
    it("answers the balance for username+password, api_key and apikey, and the negative codes otherwise", async () => {
      const t = gateway();
      const account = await buildAccount(t, { credits: { sms: 42.5 } });
      const q = (params: Record<string, string>) => call(t, "GET", `/api/getcredits?${new URLSearchParams(params)}`);
      expect((await q({ username: account.username, password: account.password })).text).toBe("42.5");
      expect((await q({ api_key: account.apiKey })).text).toBe("42.5");
      expect((await q({ apikey: account.apiKey })).text).toBe("42.5");
      expect((await q({})).text).toBe("-1");
      expect((await q({ username: account.username })).text).toBe("-2");
      expect((await q({ username: account.username, password: "wrong-password" })).text).toBe("-7");
      expect((await q({ username: "nobody-here", password: "whatever1" })).text).toBe("-7");
      expect((await q({ apikey: "sb_wrong" })).text).toBe("-7");
      const form = await call(t, "POST", "/api/getcredits", {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ username: account.username, password: account.password }).toString(),
      });
      expect(form.text).toBe("42.5");
    });
  });
});
