// The error answers of the v2 routes, as schemas: what every refusal carries and which statuses a
// route answers. They document the refusals in the OpenAPI document; the refusals themselves are
// written by JSON.stringify (serializers.ts), as http-errors.ts builds them.
import { Type } from "typebox";
import { ERROR_CATALOGUE, type ErrorCode } from "../core/errors.js";
import type { JsonEnvelope } from "./http-errors.js";

export const ErrorDetail = Type.Object(
  {
    code: Type.Unsafe<ErrorCode>({
      type: "string",
      enum: Object.keys(ERROR_CATALOGUE),
      description: "What went wrong; match on this, not on the message. The catalogue is in docs/api.md.",
    }),
    legacy_code: Type.Optional(
      Type.Integer({ description: "The legacy API's negative code for the same condition, when one exists." }),
    ),
    request_id: Type.String({ description: "The request id, also in the X-Request-Id header." }),
    field: Type.Optional(Type.String({ description: "The request field at fault, when one is." })),
    retry_after: Type.Optional(Type.Integer({ description: "Seconds to wait before retrying (429)." })),
  },
  {
    title: "ErrorDetail",
    // Some refusals add what helps fix the request (the upstream provider's error, say).
    additionalProperties: true,
  },
);

const SmsCallError = Type.Object(
  { success: Type.Literal(false), message: Type.String(), error: ErrorDetail },
  { title: "SmsCallError" },
);
const ResourceError = Type.Object(
  { status: Type.Literal("error"), message: Type.String(), error: ErrorDetail },
  { title: "ResourceError" },
);

/** What each error status means, whatever the route. */
const ERROR_STATUSES: Record<number, string> = {
  400: "The request is not valid: error.code says why (invalid_request, invalid_json, or a rule's code).",
  401: "Missing, unknown or revoked API key.",
  402: "Not enough credits in the wallet that pays for this; nothing was charged.",
  403: "The account may not do this (inactive, not approved, or not enabled for it).",
  404: "No such resource in this account.",
  409: "The request conflicts with the current state, or an Idempotency-Key was used with another body.",
  413: "The body is larger than the gateway accepts.",
  415: "Unsupported Content-Type.",
  422: "Refused by a rule of the gateway: error.code says which.",
  429: "Rate limit or flood limit exceeded; Retry-After says when to try again.",
  500: "Internal error; logged with the request id.",
  502: "The upstream provider failed; nothing was charged.",
};

/** Statuses any v2 call can answer: bad request, credentials, inactive account, rate limit, internal error. */
const EVERY_CALL = [400, 401, 403, 429, 500];
/** Statuses of a call that reads a body. */
const WITH_BODY = [413, 415];

/**
 * The error answers of a v2 route, in its envelope: the statuses every call can answer, the
 * body's when it reads one, and the route's own (`config.errors`).
 */
export function errorResponses(envelope: JsonEnvelope, own: readonly number[], hasBody: boolean) {
  const schema = envelope === "success" ? SmsCallError : ResourceError;
  const statuses = new Set([...EVERY_CALL, ...(hasBody ? WITH_BODY : []), ...own]);
  return Object.fromEntries(
    [...statuses]
      .sort((a, b) => a - b)
      // The response's description, which @fastify/swagger reads from this key and removes.
      .map((status) => [status, { ...schema, "x-response-description": ERROR_STATUSES[status] ?? "Refused." }]),
  );
}
