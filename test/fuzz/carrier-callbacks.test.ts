// Fuzzing what carriers call back (issue 36), every connector type: the http-sms delivery-report
// URL (query, form and JSON callbacks; a secret header, an HMAC, allowed addresses, an opted-out
// connector, names of none), Meta's WhatsApp webhook with values longer than Meta sends, the voice
// provider's status callback (signed, unsigned, forged), and DSNs mailed to the bounce listener
// (the gateway in this process only: bench/fuzz's server runs the api role, which has none).
// Each property: no 5xx, the surface's own dialect, the gateway's heap after forced collections
// within 10 MiB of where it began, and no stored row longer than its bound (nor more early
// reports than EARLY_REPORTS_MAX_PER_CONNECTOR).
import { createHmac } from "node:crypto";
import fc from "fast-check";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, expect } from "vitest";
import { type BounceListener, startBounceListener } from "../../src/channels/email/bounce-listener.js";
import { applyReturnedBounce } from "../../src/channels/email/events.js";
import { twilioSignature } from "../../src/channels/voice/twilio-signature.js";
import { signMetaPayload } from "../../src/channels/whatsapp/meta-webhook.js";
import { updateWhatsAppSettings } from "../../src/channels/whatsapp/settings.js";
import { saveCarrier } from "../../src/delivery/carriers/catalog.js";
import { BOUNCE_DOMAIN, emailRow, postfixDsn, silentLogger } from "../channels/email/helpers.js";
import { buildAccount } from "../helpers/gateway.js";
import { MiB } from "../helpers/heap.js";
import { encodeForm, fieldValue, mutated, paramsOf, percentEncode, requestTarget } from "./generators.js";
import {
  checkAnswer,
  describeFuzz,
  FUZZ_APP_SECRET,
  FUZZ_VOICE_CALLBACK_URL,
  FUZZ_VOICE_TOKEN,
  type FuzzGateway,
  fuzzParameters,
  useFuzzSuite,
} from "./harness.js";

const PHONE_NUMBER_ID = "555000999888";
const DLR_TOKEN = "fuzz-dlr-token-0123";
const DLR_HMAC_KEY = "fuzz-dlr-hmac-0123";
const external = process.env.FUZZ_SERVER_URL !== undefined;

/** The http-sms connectors, one per way a callback is authenticated. */
function connectors(aggregatorUrl: string) {
  const common = {
    type: "http-sms",
    method: "GET",
    url: `${aggregatorUrl}/send?to={to}&text={text}`,
    auth: { type: "none" },
    response: { type: "json", id_path: "id" },
    timeout_ms: 1_000,
    max_connections: 1,
    rate_per_second: 10,
  };
  const query = {
    method: "GET",
    source: "query",
    id_field: "id",
    status_field: "status",
    error_code_field: "err",
    delivered_values: ["DELIVRD"],
    failed_values: ["UNDELIV", "REJECTD"],
  };
  const json = {
    ...query,
    method: "POST",
    source: "json",
    id_field: "data.0.message_id",
    status_field: "data.0.status",
    error_code_field: "data.0.error.code",
  };
  return [
    { ...common, name: "fz-query", dlr: { ...query, allowed_ips: ["127.0.0.0/8", "::1"] } },
    {
      ...common,
      name: "fz-form",
      dlr: {
        ...query,
        method: "POST",
        source: "form",
        secret: { type: "header", header: "X-Dlr-Token", value: DLR_TOKEN },
      },
    },
    {
      ...common,
      name: "fz-json",
      dlr: { ...json, secret: { type: "hmac_sha256", header: "X-Signature", secret: DLR_HMAC_KEY } },
    },
    { ...common, name: "fz-open", dlr: { ...query, unauthenticated: true } },
    { ...common, name: "fz-denied", dlr: { ...query, allowed_ips: ["192.0.2.0/24"] } },
  ];
}

/** The longest value each stored column of a callback's rows may hold. */
const BOUNDS: Array<[table: string, column: string, max: number]> = [
  ["early_reports", "upstream_id", 100],
  ["early_reports", "error_code", 100],
  ["early_reports", "error_message", 400],
  ["whatsapp_inbound", "upstream_id", 200],
  ["whatsapp_inbound", "from_number", 64],
  ["whatsapp_inbound", "type", 512],
  ["whatsapp_inbound", "text", 4_096],
  ["whatsapp_inbound", "media_id", 200],
  ["email_events", "detail", 1_000],
  ["messages", "upstream_id", 200],
  ["messages", "error_message", 4_000],
];

async function expectRowsBounded(t: FuzzGateway): Promise<void> {
  const db = t.db.store.db;
  for (const [table, column, max] of BOUNDS) {
    const row = await db
      // biome-ignore lint/suspicious/noExplicitAny: a table and column named in BOUNDS
      .selectFrom(table as any)
      .select((eb) => eb.fn.max(eb.fn("length", [column])).as("longest"))
      .executeTakeFirst();
    expect(Number(row?.longest ?? 0), `${table}.${column}`).toBeLessThanOrEqual(max);
  }
  const kept = await db
    .selectFrom("early_reports")
    .select(["connector", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("connector")
    .execute();
  for (const { connector, n } of kept) {
    expect(Number(n), `early reports of ${connector}`).toBeLessThanOrEqual(t.config.earlyReportsMaxPerConnector);
  }
}

const hmac = (key: string, body: string) => createHmac("sha256", key).update(body).digest("hex");

describeFuzz("fuzz: carrier callbacks", (engine) => {
  const { gateway, property } = useFuzzSuite(engine, {
    WHATSAPP_APP_SECRET: FUZZ_APP_SECRET,
    VOICE_HTTP_AUTH_TOKEN: FUZZ_VOICE_TOKEN,
    VOICE_CALLBACK_URL: FUZZ_VOICE_CALLBACK_URL,
    EARLY_REPORTS_MAX_PER_CONNECTOR: "100",
  });
  const heapGrowthMax = 10 * MiB;
  let bounces: BounceListener | undefined;
  const emailIds: string[] = [];
  /** Mails `raw` to the bounce listener; the SMTP answer's code (250: taken). */
  const mail = async (to: string, raw: string) => {
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: bounces!.port,
      secure: false,
      ignoreTLS: true,
    });
    try {
      await transport.sendMail({ envelope: { from: "", to: [to] }, raw });
      return 250;
    } catch (error) {
      return (error as { responseCode?: number }).responseCode ?? 0;
    } finally {
      transport.close();
    }
  };
  beforeAll(async () => {
    const t = gateway();
    const deps = { store: t.db.store, clock: t.clock };
    for (const definition of connectors("http://127.0.0.1:9")) await saveCarrier(deps, definition);
    // Another account takes the callbacks' messages, so the fuzzed account's rows stay still.
    const side = await buildAccount(t, { credits: { whatsapp: 10, email: 10 }, sender: null });
    await updateWhatsAppSettings(t.db.store.db, t.clock, side.id, {
      enabled: true,
      phone_number_id: PHONE_NUMBER_ID,
      display_phone_number: "15550009988",
      waba_id: "400000000099",
      access_token: "simulated",
    });
    if (!external) {
      for (const to of ["ann@example.org", "ravi@example.org", "meera@example.org"]) {
        const row = emailRow(side.id, null, to, { status: "submitted" });
        await t.db.store.db.insertInto("messages").values(row).execute();
        emailIds.push(row.id);
      }
      const ctx = t.gateway.ctx;
      bounces = await startBounceListener({
        port: 0,
        host: "127.0.0.1",
        bounceDomain: BOUNCE_DOMAIN,
        logger: silentLogger,
        onBounce: async (bounce) => {
          await applyReturnedBounce(ctx, { messageId: bounce.messageId, diagnostic: bounce.diagnostic });
        },
      });
      // The first DSN loads the mail parser: before the first property measures the heap, as
      // what its cases leave behind is all a property's growth may count.
      await mail(
        `bounces+${emailIds[0]}@${BOUNCE_DOMAIN}`,
        postfixDsn({ to: "x", recipient: "a@example.org", action: "delayed" }),
      );
    }
    // A server in another process reads its connectors again within 5 s of a callback.
    const deadline = Date.now() + 15_000;
    while ((await fetch(`${t.url}/carriers/http-sms/fz-open/dlr?id=warm&status=ACCEPTD`)).status === 404) {
      if (Date.now() > deadline) throw new Error("the gateway does not see the fuzz connectors");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  afterAll(async () => bounces?.close());

  property(
    "answers every generated http-sms delivery report in plain text, never 5xx, keeping bounded rows and memory",
    "http-sms callbacks",
    async ({ t, client, outcomes }) => {
      const names = ["fz-query", "fz-form", "fz-json", "fz-open", "fz-denied"];
      const name = fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...names) },
        { weight: 2, arbitrary: fieldValue.map((value) => value || "x") },
      );
      const fields = paramsOf({ id: "up-1", status: "DELIVRD", err: "000" });
      const json = fc.oneof(
        {
          weight: 3,
          arbitrary: fields.map((f) =>
            JSON.stringify({ data: [{ message_id: f.id, status: f.status, error: { code: f.err } }] }),
          ),
        },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
        { weight: 1, arbitrary: fieldValue },
      );
      /** How each connector is called back when it is called as configured. */
      const configured: Record<string, ["GET" | "POST", "query" | "form" | "json"]> = {
        "fz-form": ["POST", "form"],
        "fz-json": ["POST", "json"],
      };
      const shape = fc.oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.tuple(fc.constantFrom("GET", "POST"), fc.constantFrom("query", "form", "json")) },
      );
      await fc.assert(
        fc.asyncProperty(
          name,
          shape,
          fields,
          json,
          fc.constantFrom("right", "right", "right", "wrong", "none"),
          async (connector, chosen, query, body, signing) => {
            const asConfigured = Object.hasOwn(configured, connector) ? configured[connector] : undefined;
            const [method, encoding] = chosen ?? asConfigured ?? ["GET", "query"];
            const path = `/carriers/http-sms/${percentEncode(connector)}/dlr`;
            const headers: Record<string, string> = {};
            let text: string | undefined;
            if (encoding === "form") {
              text = encodeForm(query);
              headers["content-type"] = "application/x-www-form-urlencoded";
            } else if (encoding === "json") {
              text = body;
              headers["content-type"] = "application/json";
            }
            if (signing !== "none") {
              headers["x-dlr-token"] = signing === "right" ? DLR_TOKEN : `${DLR_TOKEN}x`;
              headers["x-signature"] = hmac(signing === "right" ? DLR_HMAC_KEY : "another-key-0000", text ?? "");
            }
            const target = encoding === "query" ? requestTarget(path, encodeForm(query)) : path;
            const answer = await client.send(method, target, {
              headers,
              ...(text !== undefined && method === "POST" ? { body: text } : {}),
            });
            expect(answer.status, answer.body).toBeLessThan(500);
            // 414: a name longer than the router takes (maxParamLength), refused in the envelope before any route.
            if (answer.status === 414) checkAnswer("v2", answer, outcomes);
            else {
              expect([200, 400, 401, 403, 404], answer.body).toContain(answer.status);
              expect(answer.headers["content-type"], answer.body).toMatch(/^text\/plain/);
            }
            outcomes.record(answer.status !== 200);
          },
        ),
        fuzzParameters(),
      );
      await expectRowsBounded(t);
    },
    { heapGrowthMax },
  );

  property(
    "answers every generated WhatsApp callback with EVENT_RECEIVED or the envelope, storing nothing longer than Meta sends",
    "WhatsApp callbacks (bounds)",
    async ({ t, client, outcomes }) => {
      const long = fc.constantFrom("x".repeat(201), "9".repeat(65), "t".repeat(4_097), "w".repeat(20_000));
      const value = (valid: string) =>
        fc.oneof({ weight: 3, arbitrary: mutated(valid) }, { weight: 1, arbitrary: long });
      const message = fc.record({
        from: value("919812300012"),
        id: value("wamid.fuzz"),
        timestamp: value("1764100000"),
        type: fc.constantFrom("text", "image", "button", "interactive", "reaction"),
        text: fc.record({ body: value("hello") }),
        image: fc.record({ id: value("1234567890"), caption: value("a photo") }),
        button: fc.record({ text: value("Yes"), payload: value("yes") }),
        context: fc.record({ id: value("wamid.ctx") }),
      });
      const status = fc.record({
        id: value("wamid.sent"),
        status: fc.constantFrom("delivered", "read", "failed", "sent"),
        timestamp: value("1764100000"),
        recipient_id: value("919812300012"),
        errors: fc.array(
          fc.record({ code: fc.integer(), title: value("Failed"), error_data: fc.record({ details: value("why") }) }),
          { maxLength: 2 },
        ),
      });
      const callback = fc
        .record({
          metadata: fc.record({
            display_phone_number: value("15550009988"),
            phone_number_id: fc.constant(PHONE_NUMBER_ID),
          }),
          contacts: fc.array(fc.record({ wa_id: value("919812300012"), profile: fc.record({ name: value("Asha") }) }), {
            maxLength: 1,
          }),
          messages: fc.array(message, { maxLength: 3 }),
          statuses: fc.array(status, { maxLength: 3 }),
        })
        .map((v) =>
          JSON.stringify({
            object: "whatsapp_business_account",
            entry: [
              { id: "400000000099", changes: [{ field: "messages", value: { messaging_product: "whatsapp", ...v } }] },
            ],
          }),
        );
      await fc.assert(
        fc.asyncProperty(callback, fc.constantFrom("signed", "signed", "signed", "unsigned"), async (body, signing) => {
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (signing === "signed") headers["x-hub-signature-256"] = signMetaPayload(body, FUZZ_APP_SECRET);
          const answer = await client.send("POST", "/webhooks/whatsapp", { headers, body });
          expect(answer.status, answer.body).toBeLessThan(500);
          const refused = answer.body !== "EVENT_RECEIVED";
          if (refused) checkAnswer("v2", answer, outcomes);
          outcomes.record(refused);
        }),
        fuzzParameters(),
      );
      await expectRowsBounded(t);
    },
    { heapGrowthMax },
  );

  property(
    "answers every generated voice status callback with 204 or a refusal in plain text, never 5xx",
    "voice status callbacks",
    async ({ t, client, outcomes }) => {
      const url = `${FUZZ_VOICE_CALLBACK_URL}/voicecall/v1/status-callback`;
      const params = paramsOf({
        CallSid: "CA0123456789abcdef0123456789abcdef",
        CallStatus: "completed",
        CallDuration: "12",
        Timestamp: "Mon, 13 Jan 2025 10:00:01 +0000",
        AccountSid: "AC0123456789abcdef0123456789abcdef",
      });
      await fc.assert(
        fc.asyncProperty(
          params,
          fc.constantFrom("signed", "signed", "signed", "unsigned", "forged"),
          async (fields, signing) => {
            const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
            if (signing !== "unsigned") {
              headers["x-twilio-signature"] = twilioSignature(
                signing === "signed" ? FUZZ_VOICE_TOKEN : "forged-token",
                url,
                fields,
              );
            }
            const answer = await client.send("POST", "/voicecall/v1/status-callback", {
              headers,
              body: encodeForm(fields),
            });
            expect(answer.status, answer.body).toBeLessThan(500);
            expect([204, 400, 403], answer.body).toContain(answer.status);
            if (answer.status !== 204) expect(answer.headers["content-type"], answer.body).toMatch(/^text\/plain/);
            outcomes.record(answer.status !== 204);
          },
        ),
        fuzzParameters(),
      );
      await expectRowsBounded(t);
    },
    { heapGrowthMax },
  );

  if (external) return;
  property(
    "takes every generated DSN mailed to the bounce listener or refuses it, never with 451, keeping 1,000 characters of a diagnostic",
    "email bounces",
    async ({ t, outcomes }) => {
      const address = fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...emailIds).map((id) => `bounces+${id}@${BOUNCE_DOMAIN}`) },
        { weight: 1, arbitrary: mutated(`bounces+q01ABC@${BOUNCE_DOMAIN}`) },
      );
      const dsn = fc.record({
        recipient: mutated("ann@example.org"),
        action: mutated("failed"),
        status: mutated("5.1.1"),
        diagnostic: fc.oneof(mutated("550 5.1.1 User unknown"), fc.constant(`550 ${"long words ".repeat(2_000)}`)),
        returned: fc.constantFrom("headers" as const, "message" as const, "none" as const),
        cut: fc.option(fc.nat(), { nil: undefined }),
      });
      await fc.assert(
        fc.asyncProperty(address, dsn, async (to, spec) => {
          const safe = (text: string) => text.replace(/[\r\n]/g, " ");
          const raw = postfixDsn({
            to: safe(to),
            recipient: safe(spec.recipient),
            action: safe(spec.action),
            status: safe(spec.status),
            diagnostic: safe(spec.diagnostic),
            returned: spec.returned,
          });
          const answer = await mail(
            to.replace(/[\r\n<>]/g, ""),
            spec.cut === undefined ? raw : raw.slice(0, spec.cut % raw.length),
          );
          // 451: a bounce it could not store (the database), which the sender would retry.
          expect(answer).not.toBe(451);
          outcomes.record(answer !== 250);
        }),
        fuzzParameters(60),
      );
      await expectRowsBounded(t);
    },
    { heapGrowthMax },
  );
});
