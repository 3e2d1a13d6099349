// What the fuzz suite found, kept as plain cases so a change that brings it back fails here
// by name, whatever the generators draw.
import { beforeAll, expect, it } from "vitest";
import { updateWhatsAppSettings } from "../../src/channels/whatsapp/settings.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../helpers/gateway.js";
import { RawConnection } from "../helpers/raw-http.js";

describeEachEngine("fuzz regressions", (engine) => {
  const gateway = useTestGateway(engine);
  let account: TestAccount;
  let operator: TestAccount;
  beforeAll(async () => {
    account = await buildAccount(gateway());
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  // PostgreSQL refuses a NUL in text ("invalid byte sequence for encoding UTF8: 0x00"): a NUL in
  // a path parameter reached the query and answered 500 internal_error.
  it.each([
    "/api/v2/email/status/%00",
    "/api/v2/email/status/1_20261124_1%00",
    "/api/v2/sms/status/%00",
    "/api/v2/whatsapp/status/%00",
    "/api/v2/bulk-jobs/%00",
    "/api/v2/keywords/%00",
    "/api/v2/groups/%00/contacts",
    "/api/v2/email/templates/%00",
    "/api/v2/email/domains/%00",
    "/admin/api/accounts/%00",
    "/admin/api/accounts/a%00b/keys",
  ])("answers GET %s with a 4xx envelope, never 500", async (path) => {
    const t = gateway();
    const key = path.startsWith("/admin") ? operator.apiKey : account.apiKey;
    const response = await call(t, "GET", path, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status, response.text).toBeGreaterThanOrEqual(400);
    expect(response.status, response.text).toBeLessThan(500);
    expect(typeof response.body.error.code).toBe("string");
  });

  // Issue 22, point 4, through the WhatsApp engine: {{n}} takes the n-th param only, never a
  // member of Array or Object, and a param is never read again as a placeholder.
  it("fills WhatsApp template variables by position only", async () => {
    const t = gateway();
    const sender = await buildAccount(t, { credits: { whatsapp: 5 }, sender: null });
    await updateWhatsAppSettings(t.db.store.db, t.clock, sender.id, {
      enabled: true,
      phone_number_id: String(400_000_000_000 + sender.id),
      display_phone_number: "15550001234",
      waba_id: "400000000001",
      access_token: "simulated",
    });
    const sent = await call(t, "POST", "/api/v2/whatsapp/send", {
      headers: { authorization: `Bearer ${sender.apiKey}` },
      json: { to: "919876543210", template: "namaste", params: ["{{2}}", "constructor"] },
    });
    expect(sent.status, sent.text).toBe(200);
    const row = await t.db.store.db
      .selectFrom("messages")
      .select("body")
      .where("account_id", "=", sender.id)
      .executeTakeFirstOrThrow();
    expect(row.body).toBe("नमस्ते {{2}}, आपका ऑर्डर constructor भेज दिया गया है।");
  });

  // Issue 22, point 2, beyond the email API: every body refused for its size or type before
  // it was read leaves the keep-alive connection able to carry the next request. Fastify
  // closed the connection after a body over its limit, and the reset of the unread rest
  // destroyed the answer: the client saw the connection drop instead of its refusal.
  it.each([
    ["POST", "/api/v2/sms/send", "application/json", 17 * 1024 * 1024],
    ["POST", "/api/v2/sms/send", "text/xml", 100_000],
    ["POST", "/httpapi/send", "application/x-www-form-urlencoded", 5 * 1024 * 1024],
    ["POST", "/xmlapi/send", "application/x-www-form-urlencoded", 5 * 1024 * 1024],
    ["POST", "/voicecall/v1/jpost/send", "application/json", 2 * 1024 * 1024],
    ["POST", "/webhooks/whatsapp", "application/json", 2 * 1024 * 1024],
    ["POST", "/carriers/http-sms/none/dlr", "application/json", 200_000],
    ["POST", "/api/v2/groups/1/contacts", "application/pdf", 300_000],
  ])("answers the next request after refusing %s %s (%s, %i bytes)", async (method, path, type, size) => {
    const t = gateway();
    const connection = await RawConnection.open(t.url);
    try {
      const refused = await connection.request(method, path, {
        headers: { "content-type": type, authorization: `Bearer ${account.apiKey}` },
        body: Buffer.alloc(size, 0x61),
        timeoutMs: 10_000,
      });
      expect(refused.status, refused.body).toBeGreaterThanOrEqual(200);
      const next = await connection.request("GET", "/healthz");
      expect(next.status).toBe(200);
    } finally {
      connection.close();
    }
  });
});
