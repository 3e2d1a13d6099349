// Every answer of the operator API (/admin/api), recorded whole: one walk through every route with
// data that fills each field (nulls and values, optional fields present and absent), the answers
// written to a file and compared with it (the same on both engines). The file was written before the operator
// routes had response schemas; those schemas serialize the answers now (fast-json-stringify writes
// only the fields a schema lists, as the types it names), so an answer that differs from the file
// is a field the schemas dropped, moved or changed. The test gateway's answer check (app/answer-
// check.ts) meanwhile holds every answer's bytes to what its handler built.
import { expect, it } from "vitest";
import { boundEsme, smppPort } from "../../channels/smpp-server/client.js";
import { receiver, until, useReceivers } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type JsonResponse, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

useReceivers();

const ULID = /[0-9A-HJKMNP-TV-Z]{26}/g;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/;

/** Values that differ between runs (times, keys, secrets, process ids), replaced by their kind; the rest as answered. */
function stable(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((item) => stable(item));
  if (value && typeof value === "object") {
    // Run-dependent: a webhook delivery's id (on PostgreSQL a retried outbox write can take the
    // next one), a worker's name and the words of its state, where a process runs.
    const volatile = new Set<string>(
      "webhook_id" in value ? ["id"] : "worker" in value ? ["worker", "reason"] : "pid" in value ? ["host", "pid"] : [],
    );
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, volatile.has(k) && v !== null ? `<${k}>` : stable(v, k)]),
    );
  }
  if (typeof value === "number" && ["port", "submits_per_second"].includes(key)) return "<number>";
  if (typeof value !== "string") return value;
  if (ISO_TIME.test(value)) return value.includes(".") ? "<time.ms>" : "<time>";
  if (["raw", "record_value", "selector", "record_name"].includes(key)) return `<${key}>`;
  if (key === "id" && /^[0-9a-f]{8}-\d+$/.test(value)) return "<bind id>";
  if (/^DELETE \/smpp\/binds\/[0-9a-f]{8}-\d+$/.test(value)) return "DELETE /smpp/binds/<bind id>";
  if (key === "prefix" && value.startsWith("sb_")) return "sb_<prefix>";
  return value
    .replace(/wamid\.[A-Z]+[0-9A-Z]{26}/g, "wamid.<id>")
    .replace(ULID, "<ulid>")
    .replace(/^user\d+_[a-z0-9]+$/, "<operator>")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")
    .replace(/sb_[A-Za-z0-9_-]{8,}/g, "sb_<key>")
    .replace(/whsec_[A-Za-z0-9+/=]+/g, "whsec_<secret>")
    .replace(/\d+_\d{8}_\d+/g, "<broadcast id>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z/g, "<time>");
}

describeEachEngine("the operator API's answers", (engine) => {
  const gateway = useTestGateway(engine, {
    env: {
      SMPP_SERVER_PORT: "auto",
      LOGIN_LOCK_THRESHOLD: "2",
      LOGIN_LOCK_ADDRESSES: "1",
      SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
    },
  });

  it("answers every route as recorded before the operator API had response schemas", { timeout: 60_000 }, async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const answers: string[] = [];
    const record = (what: string, response: JsonResponse) => {
      expect(response.status, `${what}: ${response.text}`).toBeLessThan(300);
      answers.push(`${stable(what)} → ${response.status}`, JSON.stringify(stable(response.body), null, 1));
      return response.body;
    };
    /** An operator GET that is waited on, not recorded. */
    const look = async (path: string) =>
      (await call(t, "GET", `/admin/api${path}`, { headers: { authorization: `Bearer ${operator.apiKey}` } })).body
        .data;
    const admin = async (method: string, path: string, json?: unknown) =>
      record(
        `${method} ${path}`,
        await call(t, method, `/admin/api${path}`, {
          headers: { authorization: `Bearer ${operator.apiKey}` },
          ...(json !== undefined ? { json } : {}),
        }),
      );
    const v2 = async (account: TestAccount, method: string, path: string, json?: unknown) => {
      const response = await call(t, method, `/api/v2${path}`, {
        headers: { authorization: `Bearer ${account.apiKey}` },
        ...(json !== undefined ? { json } : {}),
      });
      expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
      return response;
    };

    // ---- Accounts, keys, credits, sender IDs (admin/routes.ts) ------------------------------
    const created = await admin("POST", "/accounts", {
      username: "acme",
      password: "acme-password-1",
      credits: { sms: 100, whatsapp: 5, email: 10, voice: 5 },
      rate_limit: 0,
      time_zone: "Asia/Kolkata",
      routes: ["T", "P"],
      sender_ids: ["ACMEIN"],
      dlt_entity_ids: ["1101234567890123456", "1101234567890123457"],
      default_dlt_entity_id: "1101234567890123456",
      templates: [{ content: "Your OTP is {#var#}", name: "otp", dlt_template_id: "1107161234567890123" }],
    });
    await admin("POST", "/accounts", { username: "bare", password: "bare-password-1" });
    await admin("POST", "/accounts", {
      username: "waits",
      password: "waits-password-1",
      credits: { sms: 1 },
      dlt_entity_ids: ["1101234567890123458", "1101234567890123459"],
    });
    const acme: TestAccount = {
      id: created.data.id,
      username: "acme",
      password: "acme-password-1",
      apiKey: created.data.api_key,
    };
    await admin("GET", "/accounts");
    // The whole name: the operator's own username has six random letters and digits, which held
    // "ac" in about one run of 250 and made the search find two accounts.
    await admin("GET", "/accounts?q=acme&status=active&per_page=1&page=1");
    await admin("GET", "/accounts/bare");
    await admin("GET", "/accounts/waits");
    await admin("PATCH", "/accounts/acme", {
      flood_limit: 50,
      international_enabled: true,
      smpp_password: "smpp-pw",
      smpp_max_binds: 3,
      smpp_allowed_ips: ["127.0.0.1"],
    });
    await admin("PATCH", "/accounts/bare", { status: "blocked" });
    const key = await admin("POST", "/accounts/acme/keys", { name: "ci", rate_limit: 60 });
    await admin("POST", "/accounts/acme/keys");
    await admin("PATCH", `/keys/${key.data.id}`, { rate_limit: 5 });
    await admin("DELETE", `/keys/${key.data.id}`);
    await admin("GET", "/accounts/acme/keys");
    await admin("POST", "/accounts/acme/credits", { wallet: "sms", amount: 12.5, note: "top-up" });
    await admin("POST", "/accounts/acme/credits", { wallet: "international", amount: 2 });
    await admin("GET", "/accounts/acme/ledger");
    await admin("GET", "/accounts/acme/ledger?limit=2");
    const sender = await admin("POST", "/accounts/acme/sender-ids", { sender: "NEWSND" });
    // Approved at once: white-listed as acme's DLT header too, the answer's dlt_header (decision 0151).
    await admin("POST", "/accounts/acme/sender-ids", { sender: "OKSEND", approve: true });
    const rejected = await admin("POST", "/accounts/acme/sender-ids", { sender: "NOSEND" });
    await admin("POST", `/sender-ids/${sender.data.id}/approve`);
    await admin("POST", `/sender-ids/${rejected.data.id}/reject`);
    await admin("GET", "/accounts/acme/sender-ids");

    // ---- Login locks ---------------------------------------------------------------------
    for (let i = 0; i < 2; i++) await call(t, "GET", "/api/getcredits?username=acme&password=wrong");
    await admin("GET", "/login-locks");
    await admin("GET", "/accounts/acme");
    await admin("DELETE", "/accounts/acme/login-locks?address=127.0.0.1");
    await admin("DELETE", "/accounts/acme/login-locks");

    // ---- Templates, DLT, DND (admin/sms-rule-routes.ts) -----------------------------------
    const template = await admin("POST", "/accounts/acme/templates", {
      name: "shipping",
      content: "Order {#var#} shipped",
      dlt_template_id: "1107161234567890124",
      entity_id: "1101234567890123456",
      sender: "ACMEIN",
      notes: "for orders",
    });
    const other = await admin("POST", "/accounts/acme/templates", { name: "promo", content: "Sale!", approve: true });
    await admin("POST", `/templates/${template.data.id}/approve`);
    await admin("POST", `/templates/${other.data.id}/reject`);
    await admin("GET", "/accounts/acme/templates");
    await admin("GET", "/accounts/acme/templates?status=approved&per_page=1&page=2");
    await admin("POST", "/accounts/acme/dlt/entities", { entity_id: "1101234567890123460" });
    await admin("POST", "/accounts/acme/dlt/headers", { header: "ACMEIN" });
    // White-listed already by its sender ID's add: answered as it stands.
    await admin("POST", "/accounts/acme/dlt/headers", { header: "OKSEND" });
    const entityAsked = await v2(acme, "POST", "/dlt/entities", { entity_id: "1101234567890123461" });
    const headerAsked = await v2(acme, "POST", "/dlt/headers", { header: "ASKED" });
    await admin("POST", `/dlt/entities/${entityAsked.body.data.id}/approve`);
    await admin("POST", `/dlt/headers/${headerAsked.body.data.id}/reject`);
    await admin("GET", "/accounts/acme/dlt/entities");
    await admin("GET", "/accounts/acme/dlt/headers");
    await admin("DELETE", "/accounts/acme/dlt/entities", { entity_id: "1101234567890123460" });
    await admin("DELETE", "/accounts/acme/dlt/headers", { header: "OKSEND" });
    record(
      "POST /dnd/import",
      await call(t, "POST", "/admin/api/dnd/import", {
        headers: { authorization: `Bearer ${operator.apiKey}`, "content-type": "text/csv" },
        body: "number\n9876543210\n9876543211\n9876543210\nnot-a-number\n",
      }),
    );
    await admin("POST", "/dnd", { numbers: ["9876543212", "9876543210"] });
    await admin("GET", "/dnd");
    await admin("GET", "/dnd/9876543210");
    await admin("GET", "/dnd/9876500000");
    await admin("DELETE", "/dnd", { numbers: ["9876543212"] });

    // ---- Inbound: numbers, keywords, suppressions, injection ------------------------------
    await admin("POST", "/accounts/acme/inbound-numbers", { number: "919000000001" });
    await admin("POST", "/accounts/acme/inbound-numbers", { number: "919000000001" });
    await admin("POST", "/accounts/acme/inbound-numbers", { number: "919000000002" });
    await admin("GET", "/accounts/acme/inbound-numbers");
    await admin("DELETE", "/accounts/acme/inbound-numbers/919000000002");
    const keyword = await v2(acme, "POST", "/keywords", {
      key: "INFO",
      response_type: "static",
      static_message: "Thanks!",
    });
    const silent = await v2(acme, "POST", "/keywords", { key: "QUIET", response_type: "none" });
    await admin("POST", `/keywords/${keyword.body.data.id}/approve`);
    await admin("POST", `/keywords/${silent.body.data.id}/reject`);
    await admin("GET", "/accounts/acme/keywords");
    await admin("GET", "/accounts/acme/keywords?status=approved&per_page=1");
    await admin("POST", "/accounts/acme/suppressions", { numbers: ["9876543213", "9876543214"], reason: "asked" });
    await admin("POST", "/accounts/acme/suppressions", { numbers: ["9876543213", "9876543220"] });
    await admin("GET", "/accounts/acme/suppressions");
    await admin("DELETE", "/accounts/acme/suppressions", { numbers: ["9876543214"] });
    await admin("POST", "/inbound", {
      to: "919000000001",
      from: "919876543215",
      message: "INFO please",
      upstream_id: "up-1",
      received_at: "2026-11-20T10:00:00Z",
    });
    await admin("POST", "/inbound", {
      to: "919000000001",
      from: "919876543215",
      message: "INFO please",
      upstream_id: "up-1",
    });
    await admin("POST", "/inbound", { to: "919000000001", from: "919876543216", message: "STOP" });
    await admin("POST", "/inbound", { to: "919000000001", from: "919876543217", message: "hello" });

    // ---- Webhooks (the v2 routes under the account's path) --------------------------------
    const hooks = await receiver();
    await admin("PUT", "/accounts/acme/webhooks", { delivery_report: `http://127.0.0.1:${hooks.port}/dlr` });
    await admin("GET", "/accounts/acme/webhooks");
    await admin("POST", "/accounts/acme/webhooks/rotate-secret");
    await admin("POST", "/accounts/acme/webhooks/test", { event: "delivery_report" });

    // ---- WhatsApp ------------------------------------------------------------------------
    await admin("GET", "/accounts/acme/whatsapp");
    await admin("PUT", "/accounts/acme/whatsapp", {
      enabled: true,
      connector: "simulator",
      phone_number_id: "300000000042",
      display_phone_number: "15550001234",
      waba_id: "300000000001",
      access_token: "simulated",
      sandbox: true,
      test_numbers: ["+91 98765 43218"],
    });
    await admin("POST", "/accounts/acme/whatsapp/templates/sync");
    await admin("PUT", "/accounts/acme/whatsapp/templates/hello_world", { test_only: true });
    await admin("POST", "/accounts/acme/whatsapp/inbound", { from: "+91 98765 43218", text: "Hi" });

    // ---- Email: domains and the simulator's inbox ------------------------------------------
    await admin("POST", "/accounts/acme/email/domains", { domain: "mail.acme.example", approve: true });
    await admin("POST", "/accounts/acme/email/domains", { domain: "news.acme.example" });
    await admin("PUT", "/accounts/acme/email/domains/news.acme.example", { status: "rejected" });
    await admin("GET", "/accounts/acme/email/domains");
    await v2(acme, "POST", "/email/send", {
      from: "Acme <hello@mail.acme.example>",
      to: "asha@example.org",
      subject: "Your order",
      html: "<p>Shipped.</p>",
    });
    await until(async () => (await look("/email/inbox?account=acme")).length === 1, 15_000);
    const inbox = await admin("GET", "/email/inbox?account=acme&limit=5");
    await admin("GET", `/email/inbox/${inbox.data[0].id}`);

    // ---- Voice caller IDs ------------------------------------------------------------------
    await admin("POST", "/accounts/acme/voice/caller-ids", { number: "+91 80 4000 0001" });
    await admin("POST", "/accounts/acme/voice/caller-ids", { number: "+91 80 4000 0001" });
    const asked = await v2(acme, "POST", "/voice/caller-ids", { number: "+91 80 4000 0002" });
    const refused = await v2(acme, "POST", "/voice/caller-ids", { number: "+91 80 4000 0003" });
    await admin("POST", `/voice/caller-ids/${asked.body.data.id}/approve`);
    await admin("POST", `/voice/caller-ids/${refused.body.data.id}/reject`);
    await admin("GET", "/accounts/acme/voice/caller-ids");
    await admin("DELETE", "/accounts/acme/voice/caller-ids/918040000001");

    // ---- Carriers and routes ---------------------------------------------------------------
    // A carrier nobody answers for: it stays down, and a send on its route waits (held).
    const dead = { type: "smpp", host: "127.0.0.1", port: 9, system_id: "acme", password: "secret" };
    await admin("POST", "/carriers", { name: "dead-smsc", ...dead, reconnect_initial_ms: 50 });
    await admin("PUT", "/carriers/spare-smsc", dead);
    await admin("PUT", "/carriers/spare-smsc", { ...dead, connections: 2 });
    await admin("PATCH", "/carriers/spare-smsc", { enabled: false });
    await admin("PUT", "/routes", { route: "P", prefix: "91", connectors: [{ name: "dead-smsc", weight: 2 }] });
    await admin("PUT", "/routes", { route: "P", prefix: "91", connectors: [{ name: "dead-smsc", weight: 3 }] });
    await admin("GET", "/routes");
    // The workers run the enabled carrier (down) and not the disabled one (no health: unknown).
    await until(async () => {
      const running = (await look("/carriers/health")).map((c: { connector: string }) => c.connector);
      return running.includes("dead-smsc") && !running.includes("spare-smsc");
    }, 15_000);
    await admin("GET", "/carriers/spare-smsc");
    await admin("GET", "/carriers");
    await admin("GET", "/carriers/health");
    await v2(acme, "POST", "/sms/send", {
      recipient: "9876543219",
      sender_id: "PROMOTIONAL",
      message: "Sale!",
      route: "P",
    });

    // ---- System view ----------------------------------------------------------------------
    await until(async () => (await look("/system")).queues.some((q: { held: number }) => q.held > 0), 15_000);
    await admin("GET", "/system");

    // ---- SMPP binds --------------------------------------------------------------------------
    expect(smppPort(t)).toBeGreaterThan(0);
    await boundEsme(t, { ...acme, smppPassword: "smpp-pw" }, "transmitter");
    const binds = await admin("GET", "/smpp/binds?username=acme");
    await admin("GET", "/smpp/binds");
    await admin("DELETE", `/smpp/binds/${binds.data[0].id}`);

    // ---- Removals, and the approval queue last (what every section left waiting) ------------
    await admin("DELETE", "/routes?route=P&prefix=91");
    await admin("DELETE", "/carriers/spare-smsc");
    await v2(acme, "POST", "/sender-id-requests", { sender_id: "PLEASE", note: "for alerts" });
    await v2(acme, "POST", "/templates", { name: "asked", content: "Hello {#var#}" });
    await v2(acme, "POST", "/keywords", { key: "JOIN", response_type: "none" });
    await v2(acme, "POST", "/dlt/entities", { entity_id: "1101234567890123462" });
    await v2(acme, "POST", "/dlt/headers", { header: "ASKTWO" });
    await v2(acme, "POST", "/email/domains", { domain: "asked.acme.example" });
    await v2(acme, "POST", "/voice/caller-ids", { number: "+91 80 4000 0004" });
    await admin("GET", "/approvals");
    await admin("GET", "/approvals?kind=sender_id&per_page=1");

    await expect(`${answers.join("\n")}\n`).toMatchFileSnapshot("./operator-answers.txt");
  });
});
