// Staff who change nothing read no secret (decision 0141, audit F14), through the real server on
// both engines: with an alert URL set (signed with the operator account's webhook secret), an
// account's webhook secret (rotated, so an old one still signs), a WhatsApp access token, a
// connector's password and tokens, a DKIM private key and the account's passwords and keys in the
// store, every GET of the operator API answers operator_support and operator_finance without any
// of them; GET /admin/api/alerts masks the signing secret as the webhook routes do, and the
// operator's admin reads it whole there.
import { expect, it } from "vitest";
import { addStaffUser, callAs } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";

const WHATSAPP_TOKEN = "EAAGwhatsappAccessToken0123456789";
const SMPP_PASSWORD = "smppPw42";
const HTTP_TOKEN = "carrierBearerToken0123456789";
const DLR_SECRET = "carrierDlrSecret0123456789";

describeEachEngine("staff who change nothing read no secret", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"], env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });

  it("GET /admin/api/alerts masks the signing secret for support and finance, not for the admin", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const asOperator = { authorization: `Bearer ${operator.apiKey}` };
    const set = await call(t, "PUT", "/admin/api/alerts", {
      headers: asOperator,
      json: { url: "http://127.0.0.1:9/alerts" },
    });
    expect(set.status, set.text).toBe(200);
    const secret = set.body.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const masked = `whsec_…${secret.slice(-4)}`;

    for (const role of ["operator_support", "operator_finance"]) {
      const session = await addStaffUser(t, operator, `a-${role}`, role);
      const seen = await callAs(t, session, "GET", "/admin/api/alerts");
      expect(seen.status, seen.text).toBe(200);
      expect(seen.body.data).toMatchObject({ url: "http://127.0.0.1:9/alerts", secret: masked });
      expect(seen.text).not.toContain(secret);
    }
    const admin = await addStaffUser(t, operator, "a-admin", "operator_admin");
    expect((await callAs(t, admin, "GET", "/admin/api/alerts")).body.data.secret).toBe(secret);
    expect((await call(t, "GET", "/admin/api/alerts", { headers: asOperator })).body.data.secret).toBe(secret);
  });

  it("no GET of the operator API answers support or finance a secret", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const acme = await buildAccount(t);
    const asOperator = { authorization: `Bearer ${operator.apiKey}` };
    const asAcme = { authorization: `Bearer ${acme.apiKey}` };
    const secrets: Record<string, string> = {
      "acme's password": acme.password,
      "acme's API key": acme.apiKey,
      "the operator's API key": operator.apiKey,
      "the WhatsApp access token": WHATSAPP_TOKEN,
      "the SMPP connector's password": SMPP_PASSWORD,
      "the HTTP connector's token": HTTP_TOKEN,
      "the HTTP connector's receipt secret": DLR_SECRET,
    };
    const ok = async (method: string, path: string, json: unknown, headers = asOperator) => {
      const answer = await call(t, method, path, { headers, json });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300);
      return answer;
    };

    const alerts = await ok("PUT", "/admin/api/alerts", { url: "http://127.0.0.1:9/alerts" });
    secrets["the alert signing secret"] = alerts.body.data.secret;
    const hooks = await ok("PUT", "/api/v2/webhooks", { delivery_report: "http://127.0.0.1:9/hook" }, asAcme);
    secrets["acme's previous webhook secret"] = hooks.body.data.secret;
    const rotated = await ok("POST", "/api/v2/webhooks/rotate-secret", undefined, asAcme);
    secrets["acme's webhook secret"] = rotated.body.data.secret;
    await ok("PUT", `/admin/api/accounts/${acme.username}/whatsapp`, {
      enabled: true,
      phone_number_id: "1234567890",
      access_token: WHATSAPP_TOKEN,
    });
    await ok("POST", "/admin/api/carriers", {
      name: "smsc-x",
      type: "smpp",
      host: "127.0.0.1",
      port: 9,
      system_id: "acme",
      password: SMPP_PASSWORD,
    });
    await ok("PATCH", "/admin/api/carriers/smsc-x", { enabled: false });
    await ok("POST", "/admin/api/carriers", {
      name: "http-x",
      type: "http-sms",
      method: "POST",
      url: "http://127.0.0.1:9/send",
      body: { content_type: "application/json", template: '{"to":"{to_digits}","text":"{text}"}' },
      auth: { type: "bearer", token: HTTP_TOKEN },
      response: { type: "json", id_path: "id", success_path: "status", success_values: ["OK"] },
      timeout_ms: 5000,
      max_connections: 1,
      rate_per_second: 1,
      dlr: {
        method: "POST",
        source: "json",
        id_field: "id",
        status_field: "status",
        delivered_values: ["DELIVERED"],
        failed_values: ["FAILED"],
        secret: { type: "header", header: "X-Dlr-Secret", value: DLR_SECRET },
      },
    });
    await ok("PATCH", "/admin/api/carriers/http-x", { enabled: false });
    await ok("POST", `/admin/api/accounts/${acme.username}/email/domains`, { domain: "acme.example" });
    const dkim = await t.db.store.db
      .selectFrom("email_domains")
      .select("dkim_private_key")
      .where("domain", "=", "acme.example")
      .executeTakeFirstOrThrow();
    // A line of the key's body: any part of it answered would be the key.
    secrets["the DKIM private key"] = dkim.dkim_private_key.split("\n")[1]!;

    const sessions = {
      operator_support: await addStaffUser(t, operator, "s-support", "operator_support"),
      operator_finance: await addStaffUser(t, operator, "s-finance", "operator_finance"),
    };
    const params: Record<string, string> = {
      username: acme.username,
      name: "http-x",
      domain: "acme.example",
      id: "1",
      number: "919876543210",
    };
    const gets = t.gateway.app.routeAccess.filter((r) => r.method === "GET" && r.url.startsWith("/admin/api"));
    expect(gets.length).toBeGreaterThan(50);
    const leaks: string[] = [];
    let answered = 0;
    for (const route of gets) {
      const path = route.url.replace(/:(\w+)/g, (_, name: string) => params[name] ?? "zz0");
      for (const [role, session] of Object.entries(sessions)) {
        const answer = await callAs(t, session, "GET", path);
        if (answer.status === 200) answered += 1;
        for (const [what, value] of Object.entries(secrets)) {
          if (answer.text.includes(value)) leaks.push(`${role} ${route.url}: ${what}`);
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(answered).toBeGreaterThan(60);
    // The same sweep finds them when they are there: the admin reads the alert secret whole.
    const whole = await call(t, "GET", "/admin/api/alerts", { headers: asOperator });
    expect(whole.text).toContain(secrets["the alert signing secret"]);
  });
});
