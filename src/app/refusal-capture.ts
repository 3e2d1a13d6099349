// Where the HTTP families' refusals reach the log of refusals: an onSend hook that, for a send
// route whose answer is a refusal (request.refusal, set wherever a family renders one), hands
// the log who was refused and, only if the log's caps take it, what was asked: the recipients,
// sender and text read from the request's own fields by name (never another field), the username
// of a password login (legacy, XML, email; never a password or key), and the answer as the
// family wrote it (`422 dlt_template_mismatch`, or the plain-text body `-32` of the legacy, XML,
// email and voice families). An accepted send's recipients left out (request.leftOut) are
// handed over the same way, a row each, with the same username.
import type { FastifyReply, FastifyRequest } from "fastify";
import { EMAIL_SEND_PATHS } from "../channels/email/index.js";
import { type XmlSend, xmlCredentials } from "../channels/sms/index.js";
import { VOICE_SEND_PATHS } from "../channels/voice/index.js";
import { legacyLogin } from "../domain/auth/index.js";
import {
  type LeftOut,
  REFUSAL_RECIPIENTS,
  type RefusalFamily,
  type RefusalRecorder,
} from "../domain/refusals/index.js";

/** The send routes of each family, by `METHOD url` as registered. */
const SEND_ROUTES = new Map<string, RefusalFamily>();
const both = (url: string, family: RefusalFamily) => {
  SEND_ROUTES.set(`GET ${url}`, family);
  SEND_ROUTES.set(`POST ${url}`, family);
};
for (const path of [
  "/sms/send",
  "/sms/bulk",
  "/sms/schedule",
  "/whatsapp/send",
  "/email/send",
  "/voice/calls",
  "/verify",
]) {
  SEND_ROUTES.set(`POST /api/v2${path}`, "v2");
}
SEND_ROUTES.set("GET /api/v2/sms/send", "v2");
for (const url of ["/httpapi/send", "/api/secure_api/httpapi/send"]) both(url, "legacy");
both("/xmlapi/send", "xml");
for (const url of EMAIL_SEND_PATHS) both(url, "email");
SEND_ROUTES.set(`GET ${VOICE_SEND_PATHS.query}`, "voice");
SEND_ROUTES.set(`POST ${VOICE_SEND_PATHS.form}`, "voice");
SEND_ROUTES.set(`POST ${VOICE_SEND_PATHS.json}`, "voice");

const RECIPIENT_FIELDS = ["to", "recipient", "recipients", "phonenumber", "mobile", "number", "msisdn", "destination"];
const SENDER_FIELDS = ["sender_id", "senderid", "sender", "from", "caller_id", "callerid"];
const TEXT_FIELDS = ["message", "text", "subject", "body"];
/** Characters of a field read at most (an email's `to` may be 200 kB). */
const FIELD_CHARS = 4_000;

type Fields = Record<string, unknown>;

const fieldsOf = (value: unknown): Fields | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : undefined;

/** The value of the first of `names` the request carries (body first, then query), by name as sent or lowercased. */
function field(sources: Fields[], names: readonly string[]): unknown {
  for (const source of sources) {
    for (const name of names) {
      const value = source[name] ?? source[name.toUpperCase()];
      if (value !== undefined && value !== null && value !== "") return value;
    }
  }
  return undefined;
}

const textOf = (value: unknown): string | undefined =>
  typeof value === "string" ? value.slice(0, FIELD_CHARS) : typeof value === "number" ? String(value) : undefined;

/** The recipients a value names (a list, or text separated by commas), the first few, and how many. */
function recipientsOf(value: unknown): { list: string[]; count: number } {
  if (Array.isArray(value)) {
    return { list: value.slice(0, REFUSAL_RECIPIENTS).flatMap((item) => textOf(item) ?? []), count: value.length };
  }
  if (typeof value === "number") return { list: [String(value)], count: 1 };
  if (typeof value !== "string") return { list: [], count: 0 };
  const list = value
    .slice(0, FIELD_CHARS)
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  let count = 0;
  for (let at = value.indexOf(","); at >= 0; at = value.indexOf(",", at + 1)) count++;
  return { list: list.slice(0, REFUSAL_RECIPIENTS), count: value.trim() === "" ? 0 : count + 1 };
}

/** The families whose sends may log in with a username and password. */
const PASSWORD_FAMILIES: ReadonlySet<RefusalFamily> = new Set(["legacy", "xml", "email"]);

const CREDENTIAL_FIELDS = ["username", "api_key", "apikey"];

/** The username of a password login, as the family reads its credentials (none when a key wins): never the password. */
function loginName(credentials: Record<string, unknown>): string | undefined {
  const texts: Record<string, string | undefined> = {};
  for (const name of CREDENTIAL_FIELDS) texts[name] = textOf(credentials[name]);
  const login = legacyLogin(texts);
  return "username" in login ? login.username : undefined;
}

/**
 * The credential fields beside the send (query or form), by name in any case, read as the family's
 * legacyParams reads them (an empty value is kept: an empty api_key is no key): for the username only.
 */
function credentialFields(sources: Fields[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const source of sources) {
    for (const [name, value] of Object.entries(source)) {
      const lower = name.toLowerCase();
      if (!CREDENTIAL_FIELDS.includes(lower) || lower in out) continue;
      const text = textOf(Array.isArray(value) ? value[0] : value);
      if (text !== undefined) out[lower] = text;
    }
  }
  return out;
}

/**
 * What an XML send asked, from its document as the route parsed it (its credentials only for the
 * username); nothing when it could not be read. Never parsed again here: a refused document
 * would cost its parse twice.
 */
function xmlAsked(sources: Fields[], doc: XmlSend | undefined) {
  const beside = credentialFields(sources);
  if (!doc) return { recipients: [], sender: undefined, text: undefined, texts: [], username: loginName(beside) };
  const credentials = xmlCredentials(doc, beside as Record<string, string>);
  return {
    recipients: doc.messages.map((m) => m.recipient),
    sender: doc.senderId,
    text: doc.messages[0]?.message,
    texts: doc.messages.map((m) => m.message),
    username: loginName(credentials),
  };
}

function asked(family: RefusalFamily, request: FastifyRequest) {
  const sources = [fieldsOf(request.sendFields), fieldsOf(request.body), fieldsOf(request.query)].filter(
    (s): s is Fields => s !== undefined,
  );
  if (family === "xml") {
    const doc = xmlAsked(sources, request.xmlSend);
    return { ...doc, count: doc.recipients.length };
  }
  const { list, count } = recipientsOf(field(sources, RECIPIENT_FIELDS));
  return {
    recipients: list,
    count,
    sender: textOf(field(sources, SENDER_FIELDS)),
    text: textOf(field(sources, TEXT_FIELDS)),
    username: PASSWORD_FAMILIES.has(family) ? loginName(credentialFields(sources)) : undefined,
  };
}

/** Of a document of several messages refused for one (GatewayError.item), only that one's number and text. */
function refusedItem<A extends { recipients: string[]; count: number; text: string | undefined }>(
  what: A & { texts?: string[] },
  item: { position: number; recipient: string } | undefined,
): A {
  if (!item) return what;
  return { ...what, recipients: [item.recipient], count: 1, text: what.texts?.[item.position - 1] ?? what.text };
}

/** An accepted send's left-out recipients: the send's facts once, its answer as the family wrote it. */
function recordLeftOut(
  log: RefusalRecorder,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  leftOut: LeftOut,
): void {
  const family = SEND_ROUTES.get(`${request.method} ${request.routeOptions.url ?? ""}`);
  const principal = request.principal;
  if (!family || !principal) return;
  const what = asked(family, request);
  const status = reply.statusCode;
  const plain = String(reply.getHeader("content-type") ?? "").startsWith("text/plain");
  const body = plain && typeof payload === "string" ? payload.trim().slice(0, 40) : "";
  log.recordLeftOut(
    { family, accountId: principal.accountId, address: request.ip },
    {
      broadcastId: leftOut.broadcastId,
      jobId: leftOut.jobId,
      operation: `${request.method} ${request.routeOptions.url}`,
      sender: what.sender,
      text: what.text,
      username: what.username,
      httpStatus: status,
      answer: body || String(status),
      requestId: request.id,
      // A JSON answer lists each with its code (v2 bulk); a plain-text one is the broadcast id for all.
      answerNamesCode: !plain,
      recipients: leftOut.recipients,
    },
  );
}

/** The onSend hook: records a refused send's answer. */
export function captureRefusals(log: RefusalRecorder) {
  return (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: null, payload: unknown) => void,
  ) => {
    const refusal = request.refusal;
    const leftOut = request.leftOut;
    if (leftOut && !refusal && reply.statusCode < 300) recordLeftOut(log, request, reply, payload, leftOut);
    if (refusal) {
      const family = SEND_ROUTES.get(`${request.method} ${request.routeOptions.url ?? ""}`);
      if (family) {
        const principal = request.principal;
        log.record({ family, accountId: principal ? principal.accountId : null, address: request.ip }, () => {
          const what = refusedItem(asked(family, request), refusal.item);
          const status = reply.statusCode;
          const plain = String(reply.getHeader("content-type") ?? "").startsWith("text/plain");
          const body = typeof payload === "string" ? payload.trim().slice(0, 40) : "";
          return {
            operation: `${request.method} ${request.routeOptions.url}`,
            recipients: what.recipients,
            recipientCount: what.count,
            sender: what.sender,
            text: what.text,
            username: what.username,
            httpStatus: status,
            code: refusal.code,
            answer: plain && body !== "" ? (status === 200 ? body : `${status} ${body}`) : `${status} ${refusal.code}`,
            reason: refusal.message ?? refusal.code,
            requestId: request.id,
            upline: refusal.upline,
          };
        });
      }
    }
    done(null, payload);
  };
}
