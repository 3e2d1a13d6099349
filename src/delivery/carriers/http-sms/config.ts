// The configuration of one HTTP SMS aggregator: how to send (method, URL, body and header
// templates, auth), how to read its answer, and how it calls back with delivery reports.
// A TypeBox schema, so the operator API can take it as it is, plus the checks a schema
// cannot express (placeholders known, regexes compile, a JSON body renders to JSON).
import { type Static, Type } from "typebox";
import { Value } from "typebox/value";
import { parseAddressRange } from "../../../base/core/address-ranges.js";

/** What a template may contain; each value is URL-encoded in URLs and forms, JSON-escaped in JSON bodies. */
export const PLACEHOLDERS = [
  "to",
  "to_e164",
  "to_digits",
  "from",
  "text",
  "unicode",
  "dlt_entity_id",
  "dlt_template_id",
  "dlt_tm_chain",
  "dlt_tm_chain_hash",
  "message_id",
  "callback_url",
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

const PLACEHOLDER = /\{([a-z0-9_]+)\}/g;

const HeaderName = Type.String({ pattern: "^[A-Za-z0-9-]{1,100}$", description: "An HTTP header name." });

const text = (description: string, options: { minLength?: number; maxLength?: number } = {}) =>
  Type.String({ description, maxLength: 4_000, ...options });

const FieldSource = Type.Union([Type.Literal("query"), Type.Literal("form"), Type.Literal("json")], {
  description:
    "Where the callback carries its fields: the URL query, a form body, or a JSON body (dot paths, arrays by index).",
});

const DlrSecret = Type.Union([
  Type.Object(
    {
      type: Type.Literal("header"),
      header: HeaderName,
      value: text("The shared secret.", { minLength: 8 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal("hmac_sha256"),
      header: HeaderName,
      secret: text("The HMAC key.", { minLength: 8 }),
    },
    { additionalProperties: false },
  ),
]);

const Dlr = Type.Object(
  {
    method: Type.Union([Type.Literal("GET"), Type.Literal("POST")]),
    source: FieldSource,
    id_field: text("Field (or dot path) with the aggregator's message id, as its send answer gave it.", {
      minLength: 1,
      maxLength: 200,
    }),
    status_field: text("Field (or dot path) with the delivery status.", { minLength: 1, maxLength: 200 }),
    delivered_values: Type.Array(text("", { minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50 }),
    failed_values: Type.Array(text("", { minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50 }),
    error_code_field: Type.Optional(text("Field with the failure reason code.", { minLength: 1, maxLength: 200 })),
    secret: Type.Optional(DlrSecret),
    allowed_ips: Type.Optional(
      Type.Array(text("An address or CIDR range: 203.0.113.7, 198.51.100.0/24, 2001:db8::/32.", { maxLength: 50 }), {
        minItems: 1,
        maxItems: 100,
        description: "Callbacks are taken only from these addresses (the client address, after TRUST_PROXY).",
      }),
    ),
    unauthenticated: Type.Optional(
      Type.Boolean({
        description:
          "true: callbacks are taken without secret or allowed_ips, from anyone who reaches the URL (not recommended).",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "Status values in neither list (submitted, pending, …) are acknowledged and ignored. A new connector's callbacks need secret or allowed_ips, or unauthenticated: true.",
  },
);

const JsonResponse = Type.Object(
  {
    type: Type.Literal("json"),
    id_path: text("Dot path to the message id, arrays by index: `data.0.message_id`.", {
      minLength: 1,
      maxLength: 200,
    }),
    success_path: Type.Optional(text("Dot path to a field that says whether the send was accepted.", { minLength: 1 })),
    success_values: Type.Optional(Type.Array(text("", { maxLength: 100 }), { minItems: 1, maxItems: 20 })),
  },
  { additionalProperties: false },
);

const TextResponse = Type.Object(
  {
    type: Type.Literal("text"),
    id_regex: text("A regex on the answer whose first group (or group `id`) is the message id.", {
      minLength: 1,
      maxLength: 500,
    }),
  },
  { additionalProperties: false },
);

const Auth = Type.Union([
  Type.Object({ type: Type.Literal("none") }, { additionalProperties: false }),
  Type.Object(
    { type: Type.Literal("basic"), username: text("", { minLength: 1 }), password: text("") },
    { additionalProperties: false },
  ),
  Type.Object({ type: Type.Literal("bearer"), token: text("", { minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal("header"), name: HeaderName, value: text("") }, { additionalProperties: false }),
  Type.Object(
    { type: Type.Literal("query"), name: text("", { minLength: 1, maxLength: 100 }), value: text("") },
    { additionalProperties: false },
  ),
]);

export const HttpSmsConfigSchema = Type.Object(
  {
    name: Type.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,62}$", description: "The connector's name." }),
    method: Type.Union([Type.Literal("GET"), Type.Literal("POST")]),
    url: text("URL template, http or https: `https://api.example.in/send?to={to}&text={text}`.", { minLength: 1 }),
    body: Type.Optional(
      Type.Object(
        {
          content_type: Type.Union([
            Type.Literal("application/x-www-form-urlencoded"),
            Type.Literal("application/json"),
          ]),
          template: text('Form (`to={to}&msg={text}`) or JSON (`{"to":"{to}"}`) template; POST only.', {
            minLength: 1,
          }),
        },
        { additionalProperties: false },
      ),
    ),
    headers: Type.Optional(Type.Record(HeaderName, text("Header value template."), { additionalProperties: false })),
    auth: Auth,
    response: Type.Union([JsonResponse, TextResponse]),
    retryable_statuses: Type.Optional(
      Type.Array(Type.Integer({ minimum: 400, maximum: 599 }), {
        maxItems: 100,
        description: "HTTP statuses after which the message is queued again; default 429 and every 5xx.",
      }),
    ),
    timeout_ms: Type.Integer({
      minimum: 100,
      maximum: 10_000,
      description: "Deadline of one request, from its start to the end of the answer (≤ 10 s: inside the lease).",
    }),
    max_connections: Type.Integer({ minimum: 1, maximum: 256 }),
    rate_per_second: Type.Number({ exclusiveMinimum: 0, maximum: 100_000 }),
    dlr: Type.Optional(Dlr),
  },
  { additionalProperties: false },
);

export type HttpSmsConfig = Static<typeof HttpSmsConfigSchema>;
export type HttpSmsDlrConfig = Static<typeof Dlr>;

export class HttpSmsConfigError extends Error {
  override readonly name = "HttpSmsConfigError";
}

/** The placeholders a template uses; unknown ones are a configuration error. */
export function placeholdersOf(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

/** Replaces each known placeholder with `encode(value)`; everything else is kept as written. */
export function fillTemplate(template: string, values: Record<Placeholder, string>, encode: (v: string) => string) {
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(values, name) ? encode(values[name as Placeholder]) : whole,
  );
}

/** Values that are valid JSON only inside quotes (but {unicode}, a bare 0 or 1), to test-render templates. */
const SAMPLE = {
  ...Object.fromEntries(PLACEHOLDERS.map((name) => [name, `"sample\\${name}\n`])),
  unicode: "1",
} as Record<Placeholder, string>;

/** Validates an aggregator's configuration; the error says which field is wrong and why. */
export function parseHttpSmsConfig(input: unknown): HttpSmsConfig {
  if (!Value.Check(HttpSmsConfigSchema, input)) {
    const problems = Value.Errors(HttpSmsConfigSchema, input)
      .slice(0, 5)
      .map((error) => `${error.instancePath || "/"} ${error.message}`);
    throw new HttpSmsConfigError(`Invalid http-sms configuration: ${problems.join("; ")}.`);
  }
  const config = input;
  const fail = (message: string): never => {
    throw new HttpSmsConfigError(`Invalid http-sms configuration "${config.name}": ${message}`);
  };
  const templates: [string, string][] = [["url", config.url]];
  if (config.body) templates.push(["body.template", config.body.template]);
  for (const [name, value] of Object.entries(config.headers ?? {})) templates.push([`headers.${name}`, value]);
  for (const [where, template] of templates) {
    const unknown = placeholdersOf(template).filter((name) => !(PLACEHOLDERS as readonly string[]).includes(name));
    if (unknown.length > 0) {
      fail(`${where} uses unknown placeholder(s) {${unknown.join("}, {")}}; known: {${PLACEHOLDERS.join("}, {")}}.`);
    }
  }
  if (/^[a-z]+:\/\/[^/]*\{/i.test(config.url)) fail("url's scheme, host and port cannot hold placeholders.");
  let url: URL | undefined;
  try {
    url = new URL(fillTemplate(config.url, SAMPLE, encodeURIComponent));
  } catch {
    fail("url is not an absolute URL.");
  }
  if (url && url.protocol !== "http:" && url.protocol !== "https:") fail("url must be http or https.");
  if (config.method === "GET" && config.body) fail("a GET request has no body; remove `body` or use POST.");
  if (config.method === "POST" && !config.body) fail("a POST request needs `body`.");
  if (config.body?.content_type === "application/json") {
    try {
      JSON.parse(fillTemplate(config.body.template, SAMPLE, jsonEscape));
    } catch {
      fail('body.template does not render to JSON; write string placeholders inside quotes: "to": "{to}".');
    }
  }
  if (config.response.type === "text") {
    try {
      new RegExp(config.response.id_regex);
    } catch (error) {
      fail(`response.id_regex does not compile (${(error as Error).message}).`);
    }
  }
  if (config.response.type === "json" && config.response.success_path && !config.response.success_values) {
    fail("response.success_values is required with response.success_path.");
  }
  const wrong = config.dlr?.allowed_ips?.find((entry) => parseAddressRange(entry) === undefined);
  if (wrong !== undefined) fail(`dlr.allowed_ips: "${wrong}" is not an IP address or CIDR range.`);
  if (config.dlr?.unauthenticated && (config.dlr.secret || config.dlr.allowed_ips)) {
    fail("dlr.unauthenticated: true contradicts dlr.secret and dlr.allowed_ips; leave it out.");
  }
  return config;
}

/**
 * Who may report an http-sms connector's messages: `authenticated` (a secret, allowed addresses,
 * or both), `opted_out` (dlr.unauthenticated: anyone who reaches the URL), `legacy` (anyone: a
 * connector stored before callbacks needed one or the other), or `none` (no callback configured).
 */
export function callbackAuthentication(config: Pick<HttpSmsConfig, "dlr">) {
  const dlr = config.dlr;
  if (!dlr) return "none";
  if (dlr.secret || dlr.allowed_ips) return "authenticated";
  return dlr.unauthenticated ? "opted_out" : "legacy";
}

/** A string's JSON escape without the quotes, for values placed inside a JSON template's string. */
export function jsonEscape(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}
