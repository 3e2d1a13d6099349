import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type JsonResponse, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

/** Every operator route with a valid-looking request, for the checks that apply to all of them. */
const ROUTES: [string, string, unknown?][] = [
  ["GET", "/admin/api/accounts"],
  ["POST", "/admin/api/accounts", { username: "never-made", password: "password-1" }],
  ["GET", "/admin/api/accounts/nobody"],
  ["PATCH", "/admin/api/accounts/nobody", { status: "active" }],
  ["GET", "/admin/api/accounts/nobody/keys"],
  ["POST", "/admin/api/accounts/nobody/keys", {}],
  ["DELETE", "/admin/api/keys/1"],
  ["PATCH", "/admin/api/keys/1", { rate_limit: 5 }],
  ["POST", "/admin/api/accounts/nobody/credits", { wallet: "sms", amount: 1 }],
  ["GET", "/admin/api/accounts/nobody/ledger"],
  ["GET", "/admin/api/accounts/nobody/sender-ids"],
  ["POST", "/admin/api/accounts/nobody/sender-ids", { sender: "ABCDEF" }],
  ["POST", "/admin/api/sender-ids/1/approve"],
  ["POST", "/admin/api/sender-ids/1/reject"],
];

describeEachEngine("operator API", (engine) => {
  const gateway = useTestGateway(engine);
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  const admin = (method: string, path: string, json?: unknown): Promise<JsonResponse> =>
    call(gateway(), method, path, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });

  function expectError(response: JsonResponse, status: number, code: string): void {
    expect({ status: response.status, body: response.body }).toMatchObject({
      status,
      body: { status: "error", error: { code } },
    });
    expect(response.body.message).toEqual(expect.any(String));
  }

  it("refuses every route without an operator key: 401 when missing or wrong, 403 for a customer key", async () => {
    const t = gateway();
    const customer = await buildAccount(t);
    for (const [method, path, json] of ROUTES) {
      const missing = await call(t, method, path, json === undefined ? {} : { json });
      expectError(missing, 401, "unauthorized");
      const wrong = await call(t, method, path, {
        headers: { authorization: "Bearer sb_not-a-key" },
        ...(json === undefined ? {} : { json }),
      });
      expectError(wrong, 401, "unauthorized");
      const forbidden = await call(t, method, path, {
        headers: { "x-api-key": customer.apiKey },
        ...(json === undefined ? {} : { json }),
      });
      expectError(forbidden, 403, "operator_only");
    }
    expect((await admin("GET", "/admin/api/accounts/never-made")).status).toBe(404);
  });

  it("answers 404 for every route that names an unknown account, key or sender ID", async () => {
    for (const [method, path, json] of ROUTES) {
      if (method === "GET" && path === "/admin/api/accounts") continue;
      if (method === "POST" && path === "/admin/api/accounts") continue;
      const response = await admin(
        method,
        path.replace("/keys/1", "/keys/987654").replace("/sender-ids/1/", "/sender-ids/987654/"),
        json,
      );
      expectError(response, 404, "not_found");
    }
  });

  it("creates an account whose key works at once, funded through the ledger", async () => {
    const created = await admin("POST", "/admin/api/accounts", {
      username: "acme.corp",
      password: "correct-horse",
      credits: { sms: 120.5, whatsapp: 3 },
      rate_limit: 0,
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      status: "success",
      // Nothing registered to send from yet: the answer says so (onboarding-api.test.ts covers the rest).
      data: {
        id: expect.any(Number),
        username: "acme.corp",
        api_key: expect.stringMatching(/^sb_/),
        ready: false,
        missing: expect.arrayContaining([expect.objectContaining({ what: "sender_id" })]),
      },
    });
    const balance = await call(gateway(), "GET", "/api/v2/balance", {
      headers: { authorization: `Bearer ${created.body.data.api_key}` },
    });
    expect(balance.body.data.balance).toBe(120.5);

    const shown = await admin("GET", "/admin/api/accounts/acme.corp");
    expect(shown.status).toBe(200);
    expect(shown.body.data).toMatchObject({
      id: created.body.data.id,
      username: "acme.corp",
      role: "customer",
      status: "active",
      time_zone: "Asia/Kolkata",
      balances: { sms: 120.5, whatsapp: 3, international: 0, email: 0, voice: 0 },
    });
    // No password nor its hash (password_allowed_ips, the addresses password logins may come from, is no secret).
    expect(JSON.stringify(shown.body)).not.toMatch(/"password(_hash)?"|\$argon2|correct-horse/);

    const ledger = await admin("GET", "/admin/api/accounts/acme.corp/ledger");
    expect(ledger.body.data).toEqual([
      expect.objectContaining({ wallet: "whatsapp", amount: 3, balance_after: 3, kind: "topup" }),
      expect.objectContaining({ wallet: "sms", amount: 120.5, balance_after: 120.5, kind: "topup" }),
    ]);

    const listed = await admin("GET", "/admin/api/accounts");
    expect(listed.body.data.map((a: { username: string }) => a.username)).toContain("acme.corp");
  });

  it("creates operator accounts whose key opens the operator API", async () => {
    const created = await admin("POST", "/admin/api/accounts", {
      username: "second-operator",
      password: "password-2",
      role: "operator",
    });
    expect(created.status).toBe(201);
    const listed = await call(gateway(), "GET", "/admin/api/accounts", {
      headers: { authorization: `Bearer ${created.body.data.api_key}` },
    });
    expect(listed.status).toBe(200);
  });

  it.each([
    ["an unknown wallet", { credits: { gold: 5 } }],
    ["negative credits", { credits: { sms: -1 } }],
    ["more credits than one operation may move", { credits: { sms: 1e300 } }],
    ["a short password", { password: "short" }],
    ["a username with spaces", { username: "has space" }],
    ["an unknown role", { role: "root" }],
    ["a negative rate limit", { rate_limit: -1 }],
    ["a rate limit beyond a 32-bit column", { rate_limit: 3e9 }],
    ["an extra field", { is_admin: true }],
  ])("refuses to create an account with %s (400), and creates nothing", async (what, change) => {
    const body = { username: `refused-${what.replace(/\W+/g, "-")}`, password: "password-1", ...change };
    expectError(await admin("POST", "/admin/api/accounts", body), 400, "invalid_request");
    expect((await admin("GET", `/admin/api/accounts/${encodeURIComponent(body.username)}`)).status).toBe(404);
  });

  it("answers 409 for a username that exists, also when many arrive at once", async () => {
    const body = { username: "taken-name", password: "password-1" };
    expect((await admin("POST", "/admin/api/accounts", body)).status).toBe(201);
    expectError(await admin("POST", "/admin/api/accounts", body), 409, "conflict");

    const racing = await Promise.all(
      Array.from({ length: 8 }, () => admin("POST", "/admin/api/accounts", { ...body, username: "raced-name" })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of racing.filter((r) => r.status === 409)) expect(r.body.error.code).toBe("conflict");
  });

  it("changes an account's settings, and refuses bad values", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const path = `/admin/api/accounts/${account.username}`;
    const changed = await admin("PATCH", path, {
      time_zone: "Europe/London",
      flood_limit: 5000,
      get_api_enabled: true,
      international_enabled: true,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      time_zone: "Europe/London",
      flood_limit: 5000,
      get_api_enabled: true,
      international_enabled: true,
    });
    expectError(await admin("PATCH", path, { status: "deleted" }), 400, "invalid_request");
    expectError(await admin("PATCH", path, { time_zone: "Mars/Olympus" }), 400, "invalid_request");
    expectError(await admin("PATCH", path, { flood_limit: -1 }), 400, "invalid_request");
    expectError(await admin("PATCH", path, { password: "short" }), 400, "invalid_request");
    expectError(await admin("PATCH", path, { role: "operator" }), 400, "invalid_request");
    expect((await admin("GET", path)).body.data).toMatchObject({ role: "customer", time_zone: "Europe/London" });
  });

  it("creates, lists, limits and revokes API keys", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const keysPath = `/admin/api/accounts/${account.username}/keys`;

    const plain = await call(t, "POST", keysPath, { headers: { authorization: `Bearer ${operator.apiKey}` } });
    expect(plain.status).toBe(201);
    expect(plain.body.data).toMatchObject({ account: account.username, rate_limit: 60 });
    const named = await admin("POST", keysPath, { name: "billing", rate_limit: 5 });
    expect(named.status).toBe(201);
    expect(named.body.data).toMatchObject({ rate_limit: 5, api_key: expect.stringMatching(/^sb_/) });
    expect(named.body.data.prefix).toBe(named.body.data.api_key.slice(0, 10));

    const listed = await admin("GET", keysPath);
    expect(listed.body.data).toHaveLength(3);
    expect(listed.body.data[2]).toMatchObject({
      id: named.body.data.id,
      name: "billing",
      rate_limit: 5,
      revoked_at: null,
    });
    // The plain key is shown once, at creation; listings never carry it or its hash.
    expect(JSON.stringify(listed.body)).not.toContain(named.body.data.api_key);
    expect(JSON.stringify(listed.body)).not.toMatch(/hash/);

    const limited = await admin("PATCH", `/admin/api/keys/${named.body.data.id}`, { rate_limit: 0 });
    expect(limited.body).toEqual({ status: "success", data: { id: named.body.data.id, rate_limit: 0 } });
    expectError(
      await admin("PATCH", `/admin/api/keys/${named.body.data.id}`, { rate_limit: -5 }),
      400,
      "invalid_request",
    );
    expectError(await admin("PATCH", `/admin/api/keys/${named.body.data.id}`, {}), 400, "invalid_request");
    expectError(await admin("POST", keysPath, { rate_limit: "fast" }), 400, "invalid_request");
    expectError(await admin("POST", keysPath, { scope: "all" }), 400, "invalid_request");

    const useKey = () => call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": named.body.data.api_key } });
    expect((await useKey()).status).toBe(200);
    const revoked = await admin("DELETE", `/admin/api/keys/${named.body.data.id}`);
    expect(revoked.body).toEqual({ status: "success", data: { id: named.body.data.id, revoked: true } });
    expect((await useKey()).status).toBe(401);
    expectError(await admin("DELETE", `/admin/api/keys/${named.body.data.id}`), 404, "not_found");
    expectError(await admin("DELETE", "/admin/api/keys/abc"), 400, "invalid_request");
    expect((await admin("GET", keysPath)).body.data[2].revoked_at).toMatch(/Z$/);
  });

  it("adds credits through the ledger, and refuses unknown wallets and bad amounts", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const path = `/admin/api/accounts/${account.username}/credits`;
    const added = await admin("POST", path, { wallet: "sms", amount: 2.5, note: "invoice 7" });
    expect(added.body).toEqual({
      status: "success",
      data: { account: account.username, wallet: "sms", balance: 12.5 },
    });
    const voice = await admin("POST", path, { wallet: "voice", amount: 4 });
    expect(voice.body.data).toMatchObject({ wallet: "voice", balance: 4 });

    for (const body of [
      { wallet: "gold", amount: 5 },
      { wallet: "sms", amount: -5 },
      { wallet: "sms", amount: 0 },
      { wallet: "sms", amount: 1e300 },
      { wallet: "sms", amount: "5" },
      { wallet: "sms" },
      { wallet: "sms", amount: 5, extra: 1 },
    ]) {
      const refused = await admin("POST", path, body);
      expectError(refused, 400, "invalid_request");
      // Each names its field: the wallet, the amount, the unknown one.
      expect(refused.body.error.field, JSON.stringify(body)).toBe(
        body.wallet === "gold" ? "wallet" : "extra" in body ? "extra" : "amount",
      );
    }
    const ledger = await admin("GET", `/admin/api/accounts/${account.username}/ledger?limit=2`);
    expect(ledger.body.data).toEqual([
      expect.objectContaining({ wallet: "voice", amount: 4, kind: "topup" }),
      expect.objectContaining({ wallet: "sms", amount: 2.5, balance_after: 12.5, note: "invoice 7" }),
    ]);
    expectError(await admin("GET", `/admin/api/accounts/${account.username}/ledger?limit=0`), 400, "invalid_request");
    expect(
      (await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": account.apiKey } })).body.data.balance,
    ).toBe(12.5);
  });

  it("adds, approves and rejects sender IDs", async () => {
    const t = gateway();
    const account = await buildAccount(t, { sender: null });
    const path = `/admin/api/accounts/${account.username}/sender-ids`;
    const pending = await admin("POST", path, { sender: "acmein" });
    expect(pending.status).toBe(201);
    expect(pending.body.data).toMatchObject({ account: account.username, sender_id: "ACMEIN", status: "pending" });
    const approvedAtOnce = await admin("POST", path, { sender: "OTHERS", approve: true });
    expect(approvedAtOnce.body.data.status).toBe("approved");

    const approved = await admin("POST", `/admin/api/sender-ids/${pending.body.data.id}/approve`);
    expect(approved.body.data).toMatchObject({ id: pending.body.data.id, sender_id: "ACMEIN", status: "approved" });
    const rejected = await admin("POST", `/admin/api/sender-ids/${approvedAtOnce.body.data.id}/reject`);
    expect(rejected.body.data.status).toBe("rejected");

    const listed = await admin("GET", path);
    expect(listed.body.data.map((s: { sender_id: string; status: string }) => [s.sender_id, s.status])).toEqual([
      ["ACMEIN", "approved"],
      ["OTHERS", "rejected"],
    ]);
    const seen = await call(t, "GET", "/api/v2/sender-ids?status=approved", {
      headers: { "x-api-key": account.apiKey },
    });
    expect(seen.body.data.map((s: { sender_id: string }) => s.sender_id)).toEqual(["ACMEIN"]);

    expectError(await admin("POST", path, { sender: "no!" }), 422, "invalid_sender_id");
    expectError(await admin("POST", path, { sender: "ABCDEF", approved: true }), 400, "invalid_request");
    expectError(await admin("POST", path, {}), 400, "invalid_request");
  });

  it("answers malformed or odd input with a 4xx, never a 500", async () => {
    const t = gateway();
    const bodies = ["{", "null", "[]", '"text"', "12", '{"username": {"$gt": ""}}'];
    for (const [method, path, json] of ROUTES) {
      if (method === "GET" || method === "DELETE") continue;
      for (const body of bodies) {
        const response = await call(t, method, path, {
          headers: { authorization: `Bearer ${operator.apiKey}`, "content-type": "application/json" },
          body,
        });
        // Routes without a body ignore what they are sent; the others must refuse these.
        if (json !== undefined) expect(response.status, `${method} ${path} ${body}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${method} ${path} ${body}`).toBeLessThan(500);
      }
    }
    const form = await call(t, "POST", "/admin/api/accounts", {
      headers: { authorization: `Bearer ${operator.apiKey}`, "content-type": "application/x-www-form-urlencoded" },
      body: "username=formed-user&password=password-1",
    });
    expect(form.status).toBeLessThan(500);
  });

  it("refuses the key of an operator who has been blocked", async () => {
    const t = gateway();
    const other = await buildAccount(t, { role: "operator", sender: null });
    const asOther = () =>
      call(t, "GET", "/admin/api/accounts", { headers: { authorization: `Bearer ${other.apiKey}` } });
    expect((await asOther()).status).toBe(200);
    expect((await admin("PATCH", `/admin/api/accounts/${other.username}`, { status: "blocked" })).status).toBe(200);
    expect((await asOther()).status).toBe(403);
  });
});
