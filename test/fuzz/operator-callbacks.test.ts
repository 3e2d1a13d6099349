// Fuzzing the families the others leave out: the operator API (every route of README's table,
// with an operator key: ids, query strings and JSON bodies mutated), Meta's WhatsApp callbacks
// (bodies signed with the app secret, so the parser behind the signature check is reached,
// and unsigned or wrongly signed ones) and the console's sign-in. No 5xx; the operator API and
// the console answer in the JSON envelope, the callback with EVENT_RECEIVED or the envelope;
// a refusal writes nothing to the fuzzed account; no secret reaches the log.
import { createHmac } from "node:crypto";
import fs from "node:fs";
import fc from "fast-check";
import { beforeAll, expect } from "vitest";
import { updateWhatsAppSettings } from "../../src/channels/whatsapp/settings.js";
import { buildAccount, type TestAccount } from "../helpers/gateway.js";
import { encodeForm, fieldValue, mutated, paramsOf, percentEncode, rawQuery, requestTarget } from "./generators.js";
import {
  accountState,
  checkAnswer,
  describeFuzzTogether,
  FUZZ_APP_SECRET,
  fuzzParameters,
  sendCase,
  useFuzzSuite,
} from "./harness.js";

const PHONE_NUMBER_ID = "555000111222";

/** The operator API's routes (README's table); {x} is a path parameter. */
const OPERATOR_ROUTES: Array<[string, string]> = [
  ["GET", "/admin/api/accounts"],
  ["POST", "/admin/api/accounts"],
  ["GET", "/admin/api/accounts/{x}"],
  ["PATCH", "/admin/api/accounts/{x}"],
  ["GET", "/admin/api/login-locks"],
  ["DELETE", "/admin/api/accounts/{x}/login-locks"],
  ["GET", "/admin/api/accounts/{x}/keys"],
  ["POST", "/admin/api/accounts/{x}/keys"],
  ["PATCH", "/admin/api/keys/{x}"],
  ["DELETE", "/admin/api/keys/{x}"],
  ["POST", "/admin/api/accounts/{x}/credits"],
  ["GET", "/admin/api/accounts/{x}/ledger"],
  ["GET", "/admin/api/accounts/{x}/sender-ids"],
  ["POST", "/admin/api/accounts/{x}/sender-ids"],
  ["POST", "/admin/api/sender-ids/{x}/approve"],
  ["POST", "/admin/api/sender-ids/{x}/reject"],
  ["GET", "/admin/api/accounts/{x}/templates"],
  ["POST", "/admin/api/accounts/{x}/templates"],
  ["POST", "/admin/api/templates/{x}/approve"],
  ["POST", "/admin/api/templates/{x}/reject"],
  ["GET", "/admin/api/accounts/{x}/dlt/entities"],
  ["POST", "/admin/api/accounts/{x}/dlt/entities"],
  ["DELETE", "/admin/api/accounts/{x}/dlt/headers"],
  ["POST", "/admin/api/dlt/entities/{x}/approve"],
  ["GET", "/admin/api/accounts/{x}/voice/caller-ids"],
  ["POST", "/admin/api/accounts/{x}/voice/caller-ids"],
  ["DELETE", "/admin/api/accounts/{x}/voice/caller-ids/{x}"],
  ["GET", "/admin/api/accounts/{x}/email/domains"],
  ["POST", "/admin/api/accounts/{x}/email/domains"],
  ["PUT", "/admin/api/accounts/{x}/email/domains/{x}"],
  ["GET", "/admin/api/email/inbox"],
  ["GET", "/admin/api/email/inbox/{x}"],
  ["GET", "/admin/api/carriers"],
  ["GET", "/admin/api/carriers/{x}"],
  ["PUT", "/admin/api/carriers/{x}"],
  ["PATCH", "/admin/api/carriers/{x}"],
  ["GET", "/admin/api/carriers/health"],
  ["PUT", "/admin/api/carriers/{x}/error-codes/{x}"],
  ["DELETE", "/admin/api/carriers/{x}/error-codes/{x}"],
  ["GET", "/admin/api/refund-policy"],
  ["PUT", "/admin/api/refund-policy/{x}"],
  ["DELETE", "/admin/api/refund-policy/{x}"],
  ["GET", "/admin/api/alerts"],
  ["PUT", "/admin/api/alerts"],
  ["GET", "/admin/api/accounts/{x}/low-balance-threshold"],
  ["PUT", "/admin/api/accounts/{x}/low-balance-threshold"],
  ["GET", "/admin/api/routes"],
  ["PUT", "/admin/api/routes"],
  ["DELETE", "/admin/api/routes"],
  ["POST", "/admin/api/dnd"],
  ["GET", "/admin/api/dnd/{x}"],
  ["GET", "/admin/api/approvals"],
  ["GET", "/admin/api/system"],
];

/** Field names the operator API's bodies use, and a few that no schema has. */
const FIELDS = [
  "username",
  "password",
  "role",
  "credits",
  "wallet",
  "amount",
  "note",
  "sender",
  "name",
  "content",
  "entity_id",
  "header",
  "numbers",
  "status",
  "domain",
  "approve",
  "rate_limit",
  "route",
  "prefix",
  "connectors",
  "enabled",
  "type",
  "url",
  "unlock",
  "time_zone",
  "reason",
  "description",
  "refund",
  "__proto__",
  "constructor",
];

const jsonBody = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .dictionary(
        fc.constantFrom(...FIELDS),
        fc.oneof(fieldValue, fc.jsonValue({ maxDepth: 2 }), fc.double(), fc.integer()),
        { maxKeys: 5 },
      )
      .map((value) => JSON.stringify(value)),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fieldValue },
);

/** A Meta callback, valid in shape, with values mutated. */
function metaCallback(): fc.Arbitrary<string> {
  const status = fc.record({
    id: mutated("wamid.HBgMOTE5ODc2NTQzMjEwFQIAERgSQ0I"),
    status: mutated("delivered"),
    timestamp: mutated("1764100000"),
    recipient_id: mutated("919876543210"),
    errors: fc.option(fc.array(fc.record({ code: fc.oneof(fc.integer(), fieldValue), title: fieldValue })), {
      nil: undefined,
    }),
  });
  const message = fc.record({
    from: mutated("919876543210"),
    id: mutated("wamid.inbound.1"),
    timestamp: mutated("1764100000"),
    type: mutated("text"),
    text: fc.record({ body: fieldValue }),
  });
  const value = fc.record({
    messaging_product: fc.constant("whatsapp"),
    metadata: fc.record({ display_phone_number: mutated("15550001234"), phone_number_id: mutated(PHONE_NUMBER_ID) }),
    statuses: fc.option(fc.array(status, { maxLength: 3 }), { nil: undefined }),
    messages: fc.option(fc.array(message, { maxLength: 3 }), { nil: undefined }),
  });
  const change = fc.oneof(
    fc.record({ field: fc.constant("messages"), value }),
    fc.record({
      field: fc.constant("message_template_status_update"),
      value: fc.record({
        event: mutated("APPROVED"),
        message_template_id: fc.oneof(fc.integer(), fieldValue),
        message_template_name: fieldValue,
        message_template_language: mutated("en"),
      }),
    }),
    fc.record({ field: fieldValue, value: fc.jsonValue({ maxDepth: 2 }) }),
  );
  const valid = fc
    .record({ id: mutated("400000000001"), changes: fc.array(change, { minLength: 1, maxLength: 2 }) })
    .map((entry) => JSON.stringify({ object: "whatsapp_business_account", entry: [entry] }));
  return fc.oneof(
    { weight: 6, arbitrary: valid },
    { weight: 1, arbitrary: fc.tuple(valid, fc.nat()).map(([text, at]) => text.slice(0, at % (text.length + 1))) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  );
}

function metaSignature(body: string): string {
  return `sha256=${createHmac("sha256", FUZZ_APP_SECRET).update(body).digest("hex")}`;
}

describeFuzzTogether("fuzz: operator API, WhatsApp callbacks, console sign-in", (engine) => {
  const { gateway, property } = useFuzzSuite(engine, { WHATSAPP_APP_SECRET: FUZZ_APP_SECRET });
  let operator: TestAccount;
  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    t.secrets.push(operator.apiKey, operator.password);
    // bench/fuzz looks for them in its server's log.
    if (process.env.FUZZ_SECRETS_FILE) {
      fs.appendFileSync(process.env.FUZZ_SECRETS_FILE, `${operator.password}\n${operator.apiKey}\n`);
    }
    // Another account takes the callbacks' messages, so the fuzzed account's rows stay still.
    const connected = await buildAccount(t, { credits: { whatsapp: 10 }, sender: null });
    await updateWhatsAppSettings(t.db.store.db, t.clock, connected.id, {
      enabled: true,
      phone_number_id: PHONE_NUMBER_ID,
      display_phone_number: "15550001234",
      waba_id: "400000000001",
      access_token: "simulated",
    });
  });

  property(
    "answers every generated operator call in the envelope, writing nothing to the account on refusal",
    "operator API",
    async ({ t, client, outcomes }) => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...OPERATOR_ROUTES),
          fc.array(mutated("nobody"), { minLength: 2, maxLength: 2 }),
          // No query too: a route that declares none refuses any name (decision 0024's addenda).
          fc.oneof(
            fc.constant(""),
            paramsOf({ page: "1", per_page: "10", limit: "5", status: "pending", q: "a" }).map(encodeForm),
            rawQuery,
          ),
          jsonBody,
          fc.constantFrom("application/json", "application/json", "application/json", "text/plain", "text/csv"),
          async ([method, template], ids, query, body, type) => {
            let n = 0;
            const path = template.replace(/\{x\}/g, () => percentEncode(ids[n++] || "x"));
            const withBody = method !== "GET" && method !== "DELETE";
            await sendCase(t, client, "v2", method, requestTarget(path, query), {
              headers: {
                authorization: `Bearer ${operator.apiKey}`,
                ...(withBody ? { "content-type": type } : {}),
              },
              ...(withBody ? { body } : {}),
              outcomes,
            });
          },
        ),
        fuzzParameters(),
      );
    },
  );

  property(
    "answers every generated WhatsApp callback with EVENT_RECEIVED or the envelope, never 5xx",
    "WhatsApp callbacks",
    async ({ t, client, outcomes }) => {
      await fc.assert(
        fc.asyncProperty(
          metaCallback(),
          fc.constantFrom("signed", "signed", "signed", "signed", "unsigned", "wrong"),
          async (body, signing) => {
            const headers: Record<string, string> = { "content-type": "application/json" };
            if (signing === "signed") headers["x-hub-signature-256"] = metaSignature(body);
            if (signing === "wrong") headers["x-hub-signature-256"] = metaSignature(`${body} `);
            const before = await accountState(t, t.account.id);
            const answer = await client.send("POST", "/webhooks/whatsapp", { headers, body });
            expect(answer.status, answer.body).toBeLessThan(500);
            const refused = answer.body !== "EVENT_RECEIVED";
            if (refused) checkAnswer("v2", answer);
            else expect(signing).toBe("signed");
            outcomes.record(refused);
            expect(await accountState(t, t.account.id)).toEqual(before);
          },
        ),
        fuzzParameters(),
      );
    },
  );

  property(
    "answers every generated console sign-in in the envelope, never signing anyone in",
    "console sign-in",
    async ({ t, client, outcomes }) => {
      // Usernames of no account: guessing the fuzzed account's password would lock it for the other files.
      const valid = { username: "nobody", password: "a-long-password" };
      const body = fc.oneof(
        { weight: 3, arbitrary: paramsOf(valid).map((p) => ({ type: "application/json", text: JSON.stringify(p) })) },
        { weight: 1, arbitrary: jsonBody.map((text) => ({ type: "application/json", text })) },
        {
          weight: 1,
          arbitrary: paramsOf(valid).map((p) => ({ type: "application/x-www-form-urlencoded", text: encodeForm(p) })),
        },
      );
      await fc.assert(
        fc.asyncProperty(body, async ({ type, text }) => {
          const answer = await sendCase(t, client, "v2", "POST", "/console/session", {
            headers: { "content-type": type },
            body: text,
            outcomes,
          });
          expect(answer.status, answer.body).not.toBe(201);
        }),
        fuzzParameters(60),
      );
      // Every sign-in is refused: one GET the envelope answers counts as the accepted side. With
      // an account of its own: the operator API's cases above may have revoked the fuzzed
      // account's key or changed the account (an id of "1" is a generated value like any other).
      const fresh = await buildAccount(t, { sender: null });
      const balance = await client.send("GET", "/api/v2/balance", { headers: { "x-api-key": fresh.apiKey } });
      expect(balance.status, balance.body).toBe(200);
      outcomes.record(checkAnswer("v2", balance));
    },
  );
});
