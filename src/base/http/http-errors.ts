// Maps whatever went wrong in a request to a GatewayError, and renders it in each family's
// dialect. Fastify's own errors (bad JSON, schema validation, body too large) become catalogue codes.
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { Settings } from "typebox/system";
import { GatewayError, isGatewayError } from "../core/errors.js";
import { RepeatedErrors } from "../core/repeated-errors.js";
import { isDatabaseUnavailable } from "../store/unavailable.js";

interface ValidationIssue {
  instancePath?: string;
  schemaPath?: string;
  message?: string;
  params?: Record<string, unknown>;
  keyword?: string;
}

// A union's own issue (`anyOf`) comes after all its branches' issues, two for a literal (its type,
// its value). TypeBox stops at 8 issues by default, which cut a choice of 4 or more literals
// before it (a webhook event was told "must be equal to constant", naming no value).
Settings.Set({ maxErrors: 256 });

/**
 * The values a choice of literals takes (a route code, an event; `null` when a branch is null),
 * when every branch of the union at `at` is one; undefined otherwise.
 */
function literalChoices(branches: ValidationIssue[], at: string): string[] | undefined {
  const byBranch = new Map<string, ValidationIssue[]>();
  for (const issue of branches) {
    if (issue.instancePath !== at) return undefined;
    const branch = issue.schemaPath ?? "";
    byBranch.set(branch, [...(byBranch.get(branch) ?? []), issue]);
  }
  const values: string[] = [];
  for (const issues of byBranch.values()) {
    const literal = issues.find((issue) => issue.keyword === "const");
    if (literal) values.push(String(literal.params?.allowedValue));
    else if (issues.every((issue) => issue.keyword === "type" && issue.params?.type === "null")) values.push("null");
    else return undefined;
  }
  return values.length > 0 ? values : undefined;
}

/** One literal outside a union: the value it must be, not "must be equal to constant". */
function literalIssue(issue: ValidationIssue | undefined): ValidationIssue | undefined {
  if (issue?.keyword !== "const" || /\/anyOf\/\d+$/.test(issue.schemaPath ?? "")) return issue;
  return { ...issue, message: `must be ${String(issue.params?.allowedValue)}` };
}

/**
 * The issue to tell. A value that fails a union (`anyOf`) fails every branch, and the validator
 * lists the branches' failures first: the first is the first branch's type ("must be string")
 * even when the value's type chose another branch (a number too large). Tell the chosen
 * branch's failure, or, when the type matched no branch, the types the field takes.
 */
function chooseIssue(issues: ValidationIssue[]): ValidationIssue | undefined {
  const union = issues.findIndex((issue) => issue.keyword === "anyOf");
  if (union < 0) return literalIssue(issues[0]);
  const at = issues[union]!.instancePath ?? "";
  const branches = issues.slice(0, union).filter((issue) => (issue.instancePath ?? "").startsWith(at));
  // A choice of literals (a route code, an event): the values it takes, whatever the value's type.
  const choices = literalChoices(branches, at);
  if (choices) return { instancePath: at, message: `must be one of ${choices.join(", ")}` };
  const chosen = branches.find((issue) => issue.keyword !== "type");
  if (chosen) return chosen;
  const types = [...new Set(branches.map((issue) => issue.params?.type).filter((t) => typeof t === "string"))];
  if (types.length < 2) return issues[0];
  const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
  return { instancePath: at, message: `must be ${types.map(article).join(" or ")}` };
}

/** The names an issue lists (TypeBox: `requiredProperties`, `additionalProperties`; Ajv: the singular). */
function namesOf(issue: ValidationIssue, plural: string, singular: string): string[] {
  const many = issue.params?.[plural];
  if (Array.isArray(many)) return many.filter((name): name is string => typeof name === "string");
  const one = issue.params?.[singular];
  return typeof one === "string" ? [one] : [];
}

/** A JSON pointer as the docs write a field: `/steps/1/after/on` → `steps[1].after.on`. */
function fieldPath(pointer: string): string {
  return pointer
    .split("/")
    .filter((part) => part !== "")
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), "");
}

/**
 * What went wrong, in words, and the field it names (`error.field`); never a schema engine's
 * phrase. `context` names the part of the request ("body", "querystring", "sms step").
 */
export function describeValidation(
  issues: ValidationIssue[],
  context: string | undefined,
  declared: readonly string[] | undefined,
): { text: string; field?: string } {
  const issue = chooseIssue(issues);
  if (!issue) return { text: "The request is not valid." };
  const where = context ?? "body";
  const path = fieldPath(issue.instancePath ?? "");
  const inside = (name: string) => (path ? `${path}.${name}` : name);
  const missing = issue.keyword === "required" ? namesOf(issue, "requiredProperties", "requiredProperty") : [];
  if (missing.length > 0) {
    return { text: `Missing required field "${inside(missing[0]!)}" in ${where}.`, field: inside(missing[0]!) };
  }
  // TypeBox tells an undeclared field first as the field failing `additionalProperties: false`.
  const undeclared =
    issue.keyword === "additionalProperties"
      ? namesOf(issue, "additionalProperties", "additionalProperty").map(inside)[0]
      : issue.keyword === "boolean" && issue.schemaPath?.endsWith("/additionalProperties")
        ? path
        : undefined;
  if (undeclared !== undefined) {
    // At the top, the fields the route takes (as an unknown query parameter is answered): a
    // field of another call (`schedule_at` on /sms/schedule, which takes `scheduled_at`) shows.
    const takes = !undeclared.includes(".") && declared?.length ? `; this endpoint takes: ${declared.join(", ")}` : "";
    return { text: `Unknown field "${undeclared}" in ${where}${takes}.`, field: undeclared };
  }
  const subject = path ? `Field "${path}"` : `The ${where}`;
  return { text: `${subject} ${issue.message ?? "is not valid"}.`, ...(path ? { field: path } : {}) };
}

const PG_CHARACTER_NOT_IN_REPERTOIRE = "22021";
const PG_UNTRANSLATABLE_CHARACTER = "22P05";

/** The top-level field names of a route's schema for one part of the request (body, querystring…). */
function declaredFields(request: FastifyRequest | undefined, context: string | undefined): string[] | undefined {
  const schema = request?.routeOptions.schema as Record<string, { properties?: object } | undefined> | undefined;
  const properties = schema?.[context ?? "body"]?.properties;
  return properties ? Object.keys(properties) : undefined;
}

/** `request`, when given, lets a refused undeclared field be answered with the fields the route takes. */
export function toGatewayError(error: unknown, request?: FastifyRequest): GatewayError {
  if (isGatewayError(error)) return error;
  const fe = error as Partial<FastifyError> & { validation?: ValidationIssue[]; validationContext?: string };
  if (fe.validation) {
    const context = fe.validationContext;
    const { text, field } = describeValidation(fe.validation, context, declaredFields(request, context));
    return new GatewayError("invalid_request", text, field === undefined ? undefined : { field });
  }
  switch (fe.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new GatewayError("invalid_json", `The request body is not valid JSON: ${fe.message ?? ""}`.trim());
    case "FST_ERR_CTP_BODY_TOO_LARGE": {
      // The route's own limit (16 MiB unless it says), so a client knows what to split to.
      const limit = request?.routeOptions.bodyLimit;
      const at = limit ? ` here (at most ${sizeText(limit)})` : "";
      return new GatewayError("invalid_request", `The request body is larger than the gateway accepts${at}.`, {
        http: 413,
      });
    }
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new GatewayError("invalid_request", "Unsupported Content-Type; send application/json.", { http: 415 });
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
    case "FST_ERR_CTP_INVALID_TYPE":
      return new GatewayError("invalid_request", fe.message);
  }
  // The client went away before its body arrived whole (Node's "aborted", ECONNRESET): no one
  // reads the answer, and it is neither the database nor the gateway failing.
  if (clientWentAway(error)) {
    return new GatewayError("invalid_request", "The client closed the connection before its request arrived whole.");
  }
  // PostgreSQL refuses text it cannot store: a NUL (U+0000) that reached a query from a path,
  // a query string or a body is bad input, whichever route let it through.
  if (fe.code === PG_CHARACTER_NOT_IN_REPERTOIRE || fe.code === PG_UNTRANSLATABLE_CHARACTER) {
    return new GatewayError("invalid_request", "A value contains a character that cannot be stored (U+0000, NUL).");
  }
  // The database is restarting or unreachable: a temporary refusal the client may retry.
  if (isDatabaseUnavailable(error)) return new GatewayError("service_unavailable", undefined, { retry_after: 1 });
  if (typeof fe.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new GatewayError("invalid_request", fe.message ?? "The request is not valid.", { http: fe.statusCode });
  }
  return new GatewayError("internal_error");
}

/** HTTP status for an error: the catalogue's, unless the conversion fixed a more precise one. */
export function statusOf(error: GatewayError): number {
  const override = error.details?.http;
  return typeof override === "number" ? override : error.httpStatus;
}

export type JsonEnvelope = "success" | "status";

/** An error as the JSON families answer it: `{success:false,…}` for SMS calls, `{status:"error",…}` otherwise. */
export function jsonErrorAnswer(error: GatewayError, requestId: string, envelope: JsonEnvelope) {
  const { http: _http, ...details } = error.details ?? {};
  const head = envelope === "success" ? { success: false } : { status: "error" };
  return {
    ...head,
    message: error.message,
    error: {
      code: error.code,
      ...(error.legacyCode !== undefined ? { legacy_code: error.legacyCode } : {}),
      ...details,
      request_id: requestId,
    },
  };
}

/** Renders an error as JSON: `{success:false,…}` for SMS calls, `{status:"error",…}` for resource calls. */
export function sendJsonError(request: FastifyRequest, reply: FastifyReply, raw: unknown, envelope: JsonEnvelope) {
  const error = toGatewayError(raw, request);
  logIfInternal(request, raw, error);
  const status = statusOf(error);
  if ((status === 429 || status === 503) && error.details?.retry_after !== undefined) {
    reply.header("retry-after", String(error.details.retry_after));
  }
  // RFC 9110 (15.5.2): a 401 names the scheme the server takes (an API key as a bearer token),
  // unless the route named its own (the metrics token's realm).
  if (status === 401 && !reply.hasHeader("www-authenticate")) {
    reply.header("www-authenticate", 'Bearer realm="switchboard"');
  }
  return reply.code(status).send(jsonErrorAnswer(error, request.id, envelope));
}

/** Legacy answer for a client error without a number of its own: -14 would tell the client to retry. */
const LEGACY_CLIENT_ERROR = -8;
const LEGACY_INTERNAL_ERROR = -14;

const HEADER_TEXT_MAX = 500;

/**
 * A message as a header value: printable ASCII only (no header can be split, and a header
 * carries Latin-1 at most), at most 500 characters. Every other character is written as a JSON
 * string writes it, `\uXXXX` (UTF-16 units: one outside the BMP is two), so it is named, not
 * lost; an escape is never cut in two. A printable ASCII message is sent as it is.
 */
export function headerText(message: string): string {
  let out = "";
  for (const character of message) {
    const piece = /^[\x20-\x7e]$/.test(character) ? character : escaped(character);
    if (out.length + piece.length > HEADER_TEXT_MAX) break;
    out += piece;
  }
  return out;
}

/** A character as a JSON string escapes it: `\uXXXX` for each of its UTF-16 units. */
function escaped(character: string): string {
  let out = "";
  for (let i = 0; i < character.length; i += 1) {
    out += `\\u${character.charCodeAt(i).toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return out;
}

/**
 * Renders an error the legacy way: HTTP 200 with the negative code as plain text (429 when
 * throttled). A code without a legacy number answers -8 when the request was at fault and
 * -14 only for a real internal failure. The body is the bare code clients parse; the
 * `X-Error-Message` header says why, and what fixes it, for whoever looks.
 */
export function sendLegacyError(request: FastifyRequest, reply: FastifyReply, raw: unknown) {
  const error = toGatewayError(raw);
  logIfInternal(request, raw, error);
  const status = error.code === "rate_limited" ? 429 : 200;
  const fallback = statusOf(error) < 500 ? LEGACY_CLIENT_ERROR : LEGACY_INTERNAL_ERROR;
  return reply
    .code(status)
    .header("x-error-message", headerText(error.message))
    .type("text/plain; charset=utf-8")
    .send(String(error.legacyCode ?? fallback));
}

declare module "fastify" {
  interface FastifyRequest {
    /**
     * A send's fields as its family read them, when they are not the parsed body (a multipart
     * email): the log of refusals reads the recipients, sender and text from them by name.
     */
    sendFields?: Record<string, string>;
  }
}

/** Records what the request was refused with (its log line names it; see request-log.ts). */
export function noteRefusal(request: FastifyRequest, error: GatewayError): void {
  request.refusal = {
    code: error.code,
    status: statusOf(error),
    message: error.message,
    ...(error.upline ? { upline: error.upline } : {}),
    ...(error.item ? { item: error.item } : {}),
  };
}

/** Node's error for a request whose connection closed before its body was read to the end. */
function clientWentAway(error: unknown): boolean {
  const fe = error as { code?: unknown; message?: unknown } | null;
  return fe?.code === "ECONNRESET" && fe.message === "aborted";
}

function logIfInternal(request: FastifyRequest, raw: unknown, error: GatewayError) {
  noteRefusal(request, error);
  // A client that goes away mid-body is an everyday event, not an error with a stack.
  if (clientWentAway(raw)) {
    request.log.info({ code: "ECONNRESET" }, "request aborted: the client closed the connection mid-request");
    return;
  }
  if (error.code === "internal_error" || statusOf(error) >= 500) {
    // During an outage every request fails the same way: one line with the stack, then counts.
    let repeated = repeatedByLogger.get(request.server.log);
    if (!repeated) {
      repeated = new RepeatedErrors(request.server.log);
      repeatedByLogger.set(request.server.log, repeated);
    }
    repeated.log("error", raw, "request failed", {}, request.log);
  }
}

/** Each server's count of identical failed requests, by its logger (a test builds many servers in one process). */
const repeatedByLogger = new WeakMap<object, RepeatedErrors>();

/** Writes the count of failed requests a server still holds (its close). */
export function flushRequestErrors(logger: object): void {
  repeatedByLogger.get(logger)?.flush();
}

/** A byte count as an operator writes a limit: `16 MiB`, `512 KiB`, `900 bytes`. */
function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
