// "Form parameters" in either encoding. The legacy, XML and voice families read form fields;
// a client that posts them as multipart/form-data (PHP's cURL given an array, Postman's
// form-data) must be read as one that posts them urlencoded. The text fields become the body,
// as @fastify/formbody makes it; a file part is refused (only the email family takes files).
import multipart from "@fastify/multipart";
import type { FastifyInstance } from "fastify";

/** The largest form body, in either encoding (@fastify/formbody's limit for urlencoded ones). */
export const FORM_BODY_LIMIT = 4 * 1024 * 1024;

const MULTIPART = /^multipart\/form-data\b/i;

/**
 * Registers the multipart reader for the routes of `scope` (Fastify's encapsulation keeps it
 * there), for bodies of at most `limit` bytes.
 */
export async function acceptFormData(scope: FastifyInstance, limit = FORM_BODY_LIMIT): Promise<void> {
  // The reader reads the socket itself, past Fastify's bodyLimit: the length is checked first,
  // and a field can then be no longer than the body.
  scope.addHook("onRequest", async (request) => {
    if (!MULTIPART.test(request.headers["content-type"] ?? "")) return;
    const length = request.headers["content-length"];
    if (length === undefined) {
      throw fastifyError(
        "FST_ERR_CTP_INVALID_CONTENT_LENGTH",
        411,
        "A multipart/form-data body needs a Content-Length.",
      );
    }
    if (Number(length) > limit) throw fastifyError("FST_ERR_CTP_BODY_TOO_LARGE", 413, "Request body is too large");
  });
  await scope.register(multipart, {
    attachFieldsToBody: "keyValues",
    limits: { files: 0, fields: 100, parts: 100, fieldSize: limit },
  });
}

/** Refused as Fastify refuses an urlencoded body, so each family answers both alike. */
function fastifyError(code: string, statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { code, statusCode });
}

/**
 * A form that could not be read: no length, too large, or refused by the multipart reader (a
 * file part, too many parts, a field named `__proto__`), all Fastify-style errors of a 4xx status.
 */
export function isUnreadableForm(error: unknown): boolean {
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  return typeof code === "string" && code.startsWith("FST_") && typeof statusCode === "number" && statusCode < 500;
}
