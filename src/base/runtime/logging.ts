// The process's logger: JSON lines for machines, readable colour lines for a person at a
// terminal, and never a credential. Secrets are removed by field name (a `password` field of
// anything logged) and inside text (URLs, query strings, upstream answers and error messages,
// which carry `api_key=` or `user:password@` as clients and operators wrote them).
import pino, { type DestinationStream, type Logger } from "pino";
import pretty from "pino-pretty";
import type { Config } from "./config.js";

export const REDACTED = "[REDACTED]";

/** Field and parameter names whose values are credentials, wherever they appear. */
const SECRET_NAMES = [
  "password",
  "passwd",
  "api_key",
  "apikey",
  "authorization",
  "x-api-key",
  "secret",
  "access_token",
  "auth_token",
  "token",
  "app_secret",
  "client_secret",
  // An http-sms connector's delivery-report secret, sent in a query string by mistake.
  "x-dlr-secret",
];

const SECRET_FIELD = new Set(SECRET_NAMES);

const SECRET_PARAMETER = new RegExp(
  `([?&;\\s"']|^)(${SECRET_NAMES.map((name) => name.replaceAll("-", "\\-")).join("|")})=([^&;\\s"']*)`,
  "gi",
);
const SECRET_ELEMENT = new RegExp(
  // Up to the next tag, not to the closing one: a broken document (the fuzz suite sends them) keeps it hidden too.
  `<(${SECRET_NAMES.map((name) => name.replaceAll("-", "\\-")).join("|")})>(?:<!\\[CDATA\\[[\\s\\S]*?(?:\\]\\]>|$)|[^<]*)`,
  "gi",
);
/** A JSON member named like a credential, in text that holds JSON (an upstream's answer, a body). */
const SECRET_MEMBER = new RegExp(
  `"(${SECRET_NAMES.map((name) => name.replaceAll("-", "\\-")).join("|")})"(\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"?`,
  "gi",
);
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
/**
 * The gateway's own secrets by their shape, wherever they appear and whatever names them: an
 * API key (`sb_` + 43 characters; its first 10 are kept, the prefix key listings show) and a
 * webhook signing secret (`whsec_` + base64).
 */
const API_KEY = /\b(sb_[A-Za-z0-9_-]{7})[A-Za-z0-9_-]{30,}/g;
const WEBHOOK_SECRET = /\bwhsec_[A-Za-z0-9+/=]{16,}/g;

/**
 * Text with every credential we can recognise replaced: `api_key=…` parameters and JSON
 * members, `user:password@`, Bearer tokens, and the gateway's own keys and webhook secrets.
 */
export function scrubSecrets(text: string): string {
  // Most log text holds none of these shapes: skip the expressions (a request line is on the hot path).
  if (!/[=@<]|":|Bearer|Basic|sb_|whsec_/.test(text)) return text;
  return text
    .replace(SECRET_PARAMETER, (_all, before: string, name: string) => `${before}${name}=${REDACTED}`)
    .replace(SECRET_ELEMENT, (_all, name: string) => `<${name}>${REDACTED}`)
    .replace(SECRET_MEMBER, (_all, name: string, colon: string) => `"${name}"${colon}"${REDACTED}"`)
    .replace(URL_PASSWORD, `$1:${REDACTED}@`)
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(API_KEY, `$1${REDACTED}`)
    .replace(WEBHOOK_SECRET, `whsec_${REDACTED}`);
}

/**
 * Parameters holding a whole document with the credentials inside (the XML API's), left out:
 * a malformed document (the fuzz suite sends them) can break any tag a pattern would look for.
 */
const CREDENTIAL_DOCUMENTS = new Set(["xmlstring"]);

/**
 * A request URL with its credentials out: a parameter named like one is replaced, and every
 * other value is scrubbed as text once decoded (the XML API's document, a GET send's
 * `<password>`, travels URL-encoded in the query).
 */
export function scrubUrl(url: string): string {
  const at = url.indexOf("?");
  if (at < 0) return url;
  const query = new URLSearchParams(url.slice(at + 1));
  let changed = false;
  for (const [name, value] of query) {
    const lower = name.toLowerCase();
    const clean = SECRET_FIELD.has(lower)
      ? REDACTED
      : CREDENTIAL_DOCUMENTS.has(lower)
        ? `[document of ${value.length} characters]`
        : scrubSecrets(value);
    if (clean !== value) {
      query.set(name, clean);
      changed = true;
    }
  }
  // The placeholders are written as they are, not URL-encoded.
  return changed
    ? `${url.slice(0, at)}?${query.toString().replace(/%5B([^%]*)%5D/g, (_all, inner: string) => `[${inner.replaceAll("+", " ")}]`)}`
    : url;
}

function scrubError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const serialized = pino.stdSerializers.err(error);
  return {
    ...serialized,
    message: scrubSecrets(serialized.message),
    ...(serialized.stack ? { stack: scrubSecrets(serialized.stack) } : {}),
  };
}

/**
 * A log object with its secrets out: a field named like a credential (`password`, `api_key`,
 * `authorization`, …) at any of its first three levels is replaced, and text is scrubbed. Done
 * here rather than with pino's redact paths: the wildcards those names need cost 10 µs a line
 * (bench/request-log.mjs), as much as the rest of a request's logging several times over.
 */
function scrubFields(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return scrubSecrets(value);
  // An Error is left to its serializer (scrubError), which reads its message and stack.
  if (depth > 2 || value === null || typeof value !== "object" || value instanceof Error) return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => scrubFields(item, depth + 1));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  let scrubbed: Record<string, unknown> | undefined;
  for (const [name, field] of Object.entries(value)) {
    const clean = SECRET_FIELD.has(name.toLowerCase()) && field ? REDACTED : scrubFields(field, depth + 1);
    if (clean !== field) {
      scrubbed ??= { ...value };
      scrubbed[name] = clean;
    }
  }
  return scrubbed ?? value;
}

/** A request line (request-log.ts) as one line for a person: `GET /url 200 3.1ms account code ip id`. */
function requestInOneLine(log: Record<string, unknown>, messageKey: string): string {
  const message = String(log[messageKey] ?? "");
  const http = log.http as Record<string, unknown> | undefined;
  if (!http) return message;
  return [http.method, http.url, http.status, `${http.ms}ms`, http.account, http.code, http.ip, log.reqId]
    .filter((part) => part !== undefined)
    .join(" ");
}

function destination(config: Pick<Config, "logFormat">): DestinationStream | undefined {
  const terminal = process.stdout.isTTY === true;
  if (config.logFormat === "json" || (config.logFormat === "auto" && !terminal)) return undefined;
  // In this thread and synchronous: a person reads these lines, and none may be lost at exit.
  return pretty({
    colorize: terminal,
    sync: true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,service,http,reqId",
    messageFormat: requestInOneLine,
  });
}

export function createLogger(
  config: Pick<Config, "logLevel"> & Partial<Pick<Config, "logFormat">>,
  stream?: DestinationStream,
): Logger {
  const options = {
    level: config.logLevel,
    base: { service: "switchboard" },
    serializers: { err: scrubError },
    formatters: { log: (fields: Record<string, unknown>) => scrubFields(fields) as Record<string, unknown> },
    hooks: {
      // A message built from outside text (an upstream's answer, an error) is scrubbed too.
      logMethod(this: Logger, args: unknown[], method: (...args: unknown[]) => void) {
        method.apply(
          this,
          args.map((arg) => (typeof arg === "string" ? scrubSecrets(arg) : arg)),
        );
      },
    },
  };
  const target = stream ?? destination({ logFormat: config.logFormat ?? "json" });
  return target ? pino(options, target) : pino(options);
}
