// Keys that can do less (issue 42, item 3), through the real server on both engines: a key's
// scopes and address allow-list refuse it on every family in the family's own dialect (403 on v2
// and the operator API, -7 on legacy, XML, email and voice, 401 on WhatsApp), with the reason in
// the log of refusals; keys made before keep every scope; an account's password logins follow
// its password_allowed_ips.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { legacy, pushsms, sendParams, xmlSend } from "../../helpers/legacy.js";

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function makeKey(t: TestGateway, owner: TestAccount, body: Record<string, unknown>): Promise<string> {
  const made = await call(t, "POST", "/api/v2/keys", { headers: bearer(owner.apiKey), json: body });
  expect(made.status, made.text).toBe(201);
  return made.body.data.api_key;
}

/** The refusals of the account with this code, as GET /api/v2/refusals lists them (written in batches). */
async function refusalsWith(t: TestGateway, owner: TestAccount, code: string) {
  const page = await call(t, "GET", `/api/v2/refusals?code=${code}`, { headers: bearer(owner.apiKey) });
  expect(page.status, page.text).toBe(200);
  return page.body.data as { answer: string; reason: string; operation: string }[];
}

describeEachEngine("API key scopes and allow-lists", (engine) => {
  const gateway = useTestGateway(engine);

  it("makes a key with scopes and allowed_ips, lists them, and keeps every scope for a key made without", async () => {
    const t = gateway();
    const owner = await buildAccount(t);
    const made = await call(t, "POST", "/api/v2/keys", {
      headers: bearer(owner.apiKey),
      json: { name: "reports", scopes: ["read", "send", "read"], allowed_ips: ["127.0.0.1", "2001:db8::/32"] },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data).toMatchObject({ name: "reports", scopes: ["send", "read"] });
    expect(made.body.data.allowed_ips).toEqual(["127.0.0.1", "2001:db8::/32"]);
    const list = await call(t, "GET", "/api/v2/keys", { headers: bearer(owner.apiKey) });
    const rows = list.body.data as { id: number; scopes: string[]; allowed_ips: string[] | null }[];
    expect(rows.find((row) => row.id === made.body.data.id)).toMatchObject({ scopes: ["send", "read"] });
    // The account's first key, made before any scope was asked for: every scope, anywhere.
    expect(rows[0]).toMatchObject({ scopes: ["send", "read", "manage", "billing"], allowed_ips: null });
    const full = await call(t, "POST", "/api/v2/keys", { headers: bearer(owner.apiKey) });
    expect(full.body.data).toMatchObject({ scopes: ["send", "read", "manage", "billing"], allowed_ips: null });
  });

  it("refuses a bad scope or address in the request's own words, never a 500", async () => {
    const t = gateway();
    const owner = await buildAccount(t);
    const cases: [unknown, string][] = [
      [{ scopes: ["admin"] }, "scopes"],
      [{ scopes: [] }, "scopes"],
      [{ scopes: "send" }, "scopes"],
      [{ allowed_ips: ["10.0.0.0/33"] }, "allowed_ips"],
      [{ allowed_ips: ["not an address"] }, "allowed_ips"],
      [{ allowed_ips: "127.0.0.1" }, "allowed_ips"],
    ];
    for (const [json, field] of cases) {
      const answer = await call(t, "POST", "/api/v2/keys", { headers: bearer(owner.apiKey), json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body.error.code).toBe("invalid_request");
      expect(answer.text).toContain(field);
    }
  });

  it("refuses a route outside the key's scopes on v2, 401 on WhatsApp, and logs why", async () => {
    const t = gateway();
    const owner = await buildAccount(t, { credits: { sms: 100, whatsapp: 10 } });
    const reader = await makeKey(t, owner, { scopes: ["read"] });
    expect((await call(t, "GET", "/api/v2/messages", { headers: bearer(reader) })).status).toBe(200);

    const send = await call(t, "POST", "/api/v2/sms/send", {
      headers: bearer(reader),
      json: { to: "9876543210", sender_id: "SWBRD", message: "Hello", route: "T" },
    });
    expect(send.status, send.text).toBe(403);
    expect(send.body.error).toMatchObject({ code: "insufficient_scope", needed_scope: "send" });
    expect(send.body.message).toContain("send");
    for (const [method, path, needed] of [
      ["GET", "/api/v2/balance", "billing"],
      ["POST", "/api/v2/keys", "manage"],
      ["POST", "/api/v2/templates", "manage"],
    ] as const) {
      const answer = await call(t, method, path, {
        headers: bearer(reader),
        ...(method === "POST" ? { json: {} } : {}),
      });
      expect(answer.status, path).toBe(403);
      expect(answer.body.error).toMatchObject({ code: "insufficient_scope", needed_scope: needed });
    }
    const whatsapp = await call(t, "POST", "/api/v2/whatsapp/send", {
      headers: bearer(reader),
      json: { to: "919876543210", message: "hi" },
    });
    expect(whatsapp.status, whatsapp.text).toBe(401);
    expect(whatsapp.body.error.code).toBe("insufficient_scope");

    await expect
      .poll(async () => (await refusalsWith(t, owner, "insufficient_scope")).map((r) => r.operation).sort(), {
        timeout: 10_000,
      })
      .toEqual(["POST /api/v2/sms/send", "POST /api/v2/whatsapp/send"]);
    const [logged] = await refusalsWith(t, owner, "insufficient_scope");
    expect(logged!.reason).toMatch(/scopes \(read\)/);
  });

  it("answers -7 on legacy, XML, email and voice for a key without the scope, with the reason logged", async () => {
    const t = gateway();
    const owner = await buildAccount(t, { credits: { sms: 100, email: 10, voice: 10 } });
    const reader = await makeKey(t, owner, { scopes: ["read"] });
    const sender = await makeKey(t, owner, { scopes: ["send"] });

    const send = await legacy(t, "/httpapi/send", sendParams(owner, { username: undefined, api_key: reader }));
    expect(send.text).toBe("-7");
    expect(send.headers.get("x-error-message")).toContain("scopes (read)");
    // The same key reads; a send-only key does not.
    expect((await legacy(t, "/api/secure_api/httpapi/accountstatus", { api_key: reader })).text).toBe("active");
    expect((await legacy(t, "/httpapi/accountstatus", { api_key: sender })).text).toBe("-7");
    expect((await legacy(t, "/api/getcredits", { api_key: sender })).text).toBe("-7");

    const xml = pushsms({ username: "", password: "" }, { messages: [{ pno: "9876543210", msg: "Hello" }] }).replace(
      /<username>.*<\/password>/s,
      `<apikey>${reader}</apikey>`,
    );
    expect(xml).toContain("<apikey>");
    expect((await xmlSend(t, xml)).text).toBe("-7");

    const email = await legacy(t, "/httpemailapi/v1/send", {
      api_key: reader,
      from: "Shop <news@example.com>",
      to: "a@example.com",
      subject: "Hi",
      html: "<p>Hi</p>",
    });
    expect(email.text).toBe("-7");
    const voice = await legacy(t, "/voicecall/v1/send", {
      apikey: reader,
      from: "9000000000",
      to: "9876543210",
      text: "Hello",
    });
    expect(voice.text).toBe("-7");

    await expect
      .poll(async () => (await refusalsWith(t, owner, "insufficient_scope")).map((r) => r.answer).sort(), {
        timeout: 10_000,
      })
      .toEqual(["-7", "-7", "-7", "-7"]);
  });

  it("refuses a key outside its allowed_ips on every family, and takes it from inside (IPv4 and IPv6 lists)", async () => {
    const t = gateway();
    const owner = await buildAccount(t, { credits: { sms: 100, whatsapp: 10 } });
    const elsewhere = await makeKey(t, owner, { allowed_ips: ["203.0.113.0/24", "2001:db8::/32"] });
    const here = await makeKey(t, owner, { allowed_ips: ["2001:db8::/32", "127.0.0.0/8"] });
    expect((await call(t, "GET", "/api/v2/balance", { headers: bearer(here) })).status).toBe(200);
    expect((await legacy(t, "/api/getcredits", { api_key: here })).text).toBe("100");

    const v2 = await call(t, "GET", "/api/v2/balance", { headers: bearer(elsewhere) });
    expect(v2.status).toBe(403);
    expect(v2.body.error.code).toBe("address_not_allowed");
    expect(v2.body.message).toContain("127.0.0.1");
    const whatsapp = await call(t, "GET", "/api/v2/whatsapp/templates", { headers: bearer(elsewhere) });
    expect(whatsapp.status).toBe(401);
    expect(
      (await legacy(t, "/httpapi/send", sendParams(owner, { username: undefined, api_key: elsewhere }))).text,
    ).toBe("-7");
    expect((await legacy(t, "/voicecall/v1/send", { apikey: elsewhere, from: "1", to: "2", text: "x" })).text).toBe(
      "-7",
    );
    await expect
      .poll(async () => (await refusalsWith(t, owner, "address_not_allowed")).map((r) => r.operation).sort(), {
        timeout: 10_000,
      })
      .toEqual(["GET /httpapi/send", "GET /voicecall/v1/send"]);
  });

  it("keeps a key from making a key with more scopes than its own", async () => {
    const t = gateway();
    const owner = await buildAccount(t);
    const manager = await makeKey(t, owner, { scopes: ["manage", "read"] });
    const wider = await call(t, "POST", "/api/v2/keys", { headers: bearer(manager), json: { scopes: ["billing"] } });
    expect(wider.status).toBe(403);
    expect(wider.body.error.code).toBe("insufficient_scope");
    const inherited = await call(t, "POST", "/api/v2/keys", { headers: bearer(manager), json: {} });
    expect(inherited.status, inherited.text).toBe(201);
    expect(inherited.body.data.scopes).toEqual(["read", "manage"]);
  });

  it("limits an operator key on /admin/api by its scopes and allow-list", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator" });
    const customer = await buildAccount(t);
    const made = await call(t, "POST", `/admin/api/accounts/${operator.username}/keys`, {
      headers: bearer(operator.apiKey),
      json: { scopes: ["read"] },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data.scopes).toEqual(["read"]);
    const reader = made.body.data.api_key as string;
    expect((await call(t, "GET", "/admin/api/accounts", { headers: bearer(reader) })).status).toBe(200);
    const credits = await call(t, "POST", `/admin/api/accounts/${customer.username}/credits`, {
      headers: bearer(reader),
      json: { wallet: "sms", amount: 5 },
    });
    expect(credits.status).toBe(403);
    expect(credits.body.error).toMatchObject({ code: "insufficient_scope", needed_scope: "billing" });
    const change = await call(t, "PATCH", `/admin/api/accounts/${customer.username}`, {
      headers: bearer(reader),
      json: { flood_limit: 5 },
    });
    expect(change.body.error).toMatchObject({ code: "insufficient_scope", needed_scope: "manage" });

    const far = await call(t, "POST", `/admin/api/accounts/${operator.username}/keys`, {
      headers: bearer(operator.apiKey),
      json: { allowed_ips: ["198.51.100.7"] },
    });
    const listed = await call(t, "GET", `/admin/api/accounts/${operator.username}/keys`, {
      headers: bearer(operator.apiKey),
    });
    expect(listed.body.data.find((k: { id: number }) => k.id === far.body.data.id).allowed_ips).toEqual([
      "198.51.100.7",
    ]);
    const refused = await call(t, "GET", "/admin/api/accounts", { headers: bearer(far.body.data.api_key) });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("address_not_allowed");
  });

  it("refuses password logins from outside the account's password_allowed_ips with -7 (legacy, XML, email)", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator" });
    const owner = await buildAccount(t);
    const set = async (list: string[] | null) => {
      const answer = await call(t, "PATCH", `/admin/api/accounts/${owner.username}`, {
        headers: bearer(operator.apiKey),
        json: { password_allowed_ips: list },
      });
      expect(answer.status, answer.text).toBe(200);
      return answer.body.data.password_allowed_ips;
    };
    expect(await set(["203.0.113.0/24", "2001:db8::/48"])).toEqual(["203.0.113.0/24", "2001:db8::/48"]);
    const password = { username: owner.username, password: owner.password };
    const status = await legacy(t, "/httpapi/accountstatus", password);
    expect(status.text).toBe("-7");
    expect(status.headers.get("x-error-message")).toContain("password_allowed_ips");
    const xml = pushsms(owner, { messages: [{ pno: "9876543210", msg: "Hello" }] });
    expect((await xmlSend(t, xml)).text).toBe("-7");
    const email = await legacy(t, "/httpemailapi/v1/send", { ...password, from: "a@example.com", to: "b@example.com" });
    expect(email.text).toBe("-7");
    // The account's keys are not password logins.
    expect((await legacy(t, "/httpapi/accountstatus", { api_key: owner.apiKey })).text).toBe("active");
    await expect
      .poll(async () => (await refusalsWith(t, owner, "address_not_allowed")).length, { timeout: 10_000 })
      .toBe(2);

    const bad = await call(t, "PATCH", `/admin/api/accounts/${owner.username}`, {
      headers: bearer(operator.apiKey),
      json: { password_allowed_ips: ["300.1.1.1"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("password_allowed_ips");
    expect(await set(["127.0.0.1"])).toEqual(["127.0.0.1"]);
    expect((await legacy(t, "/httpapi/accountstatus", password)).text).toBe("active");
    expect(await set(null)).toBeNull();
    expect((await legacy(t, "/httpapi/accountstatus", password)).text).toBe("active");
  });
});

describeEachEngine("API key allow-lists behind a trusted proxy", (engine) => {
  const gateway = useTestGateway(engine, { env: { TRUST_PROXY: "127.0.0.1" } });

  it("checks the forwarded client address, not the proxy's", async () => {
    const t = gateway();
    const owner = await buildAccount(t);
    const key = await makeKey(t, owner, { allowed_ips: ["203.0.113.0/24"] });
    const from = (address: string) => ({ ...bearer(key), "x-forwarded-for": address });
    expect((await call(t, "GET", "/api/v2/messages", { headers: from("203.0.113.9") })).status).toBe(200);
    const refused = await call(t, "GET", "/api/v2/messages", { headers: from("198.51.100.1") });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("198.51.100.1");
    expect((await call(t, "GET", "/api/v2/messages", { headers: bearer(key) })).status).toBe(403);
  });
});
