// "Form parameters" in either encoding. The legacy, XML and voice families read form fields;
// a client that posts them as multipart/form-data (PHP's cURL given an array, Postman's
// form-data) must be read as one that posts them urlencoded. The text fields become the body,
// as an urlencoded form is read (body-text.ts); a file part is refused (only the email family takes files).
// A text field's bytes are read in its charset (its part's Content-Type, else the form's
// `_charset_` field, RFC 7578 4.6, else UTF-8); one that is not UTF-8 is named, never read as
// U+FFFD (decision 0186's addendum). The multipart reader puts U+FFFD for such bytes, so the
// body's bytes are kept while it reads, and read again when a field holds U+FFFD (a real one
// stays: its bytes are UTF-8), a C1 control (ISO-8859-1 declared: read as Windows-1252) or the
// form names its charset.
import multipart from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { GatewayError } from "../core/errors.js";
import { declaredCharset, decodeText, formCharset, notUtf8Parameter } from "./body-text.js";

declare module "fastify" {
  interface FastifyRequest {
    /** A form's first parameter whose bytes or escapes are not UTF-8 (base/http/body-text.ts). */
    formNotUtf8?: string;
  }
}

/** The largest form body, in either encoding (the urlencoded reader takes the same). */
export const FORM_BODY_LIMIT = 4 * 1024 * 1024;

const MULTIPART = /^multipart\/form-data\b/i;
/** A non-empty boundary parameter, quoted or not (the email family's reader checks it too). */
export const MULTIPART_BOUNDARY = /;\s*boundary=("[^"]+"|[^\s";]+)/i;

/**
 * Registers the multipart reader for the routes of `scope` (Fastify's encapsulation keeps it
 * there), for bodies of at most `limit` bytes.
 */
export async function acceptFormData(
  scope: FastifyInstance,
  limit = FORM_BODY_LIMIT,
  options: {
    /**
     * The refusal of a text field that is not UTF-8, in the scope's dialect (400 naming it unless
     * given); one that returns undefined lets the request through, `formNotUtf8` naming the field.
     */
    notUtf8?: (name: string) => GatewayError | undefined;
  } = {},
): Promise<void> {
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
    // Without a boundary nothing in the body can be read: the reader's own refusal was an unexpected error (-14).
    if (!MULTIPART_BOUNDARY.test(request.headers["content-type"] ?? "")) {
      throw fastifyError(
        "FST_ERR_MULTIPART_NO_BOUNDARY",
        400,
        "A multipart/form-data body needs a boundary in its Content-Type (multipart/form-data; boundary=...).",
      );
    }
  });
  // The body's bytes, kept while the reader reads them (a second listener: both see every chunk).
  const bodies = new WeakMap<FastifyRequest, Buffer[]>();
  scope.addHook("preValidation", (request, _reply, done) => {
    if (MULTIPART.test(request.headers["content-type"] ?? "")) {
      const chunks: Buffer[] = [];
      bodies.set(request, chunks);
      request.raw.on("data", (chunk: Buffer) => chunks.push(chunk));
      // Not flowing until the reader pipes it: no chunk can pass before the reader listens.
      request.raw.pause();
    }
    done();
  });
  await scope.register(multipart, {
    attachFieldsToBody: "keyValues",
    limits: { files: 0, fields: 100, parts: 100, fieldSize: limit },
  });
  scope.addHook("preValidation", (request, _reply, done) => {
    const chunks = bodies.get(request);
    bodies.delete(request);
    if (!chunks || request.body === null || typeof request.body !== "object") return done();
    const body = request.body as Record<string, unknown>;
    if (!Object.hasOwn(body, "_charset_") && !Object.values(body).some(mayHaveMisread)) return done();
    try {
      const notUtf8 = rereadTextFields(body, Buffer.concat(chunks), request.headers["content-type"] ?? "");
      if (notUtf8 === undefined) return done();
      request.formNotUtf8 = notUtf8;
      const refusal = options.notUtf8 ? options.notUtf8(notUtf8) : notUtf8Parameter(notUtf8);
      done(refusal);
    } catch (error) {
      done(error as Error);
    }
  });
}

/** Text the reader may have read other than its bytes say: a U+FFFD, or a C1 control (ISO-8859-1 read as such). */
function mayHaveMisread(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(mayHaveMisread);
  return typeof value === "string" && /[\u0080-\u009f\ufffd]/.test(value);
}

const BOUNDARY = /;\s*boundary=(?:"([^"]+)"|([^\s";]+))/i;
const NAME = /;\s*name=(?:"([^"]*)"|([^\s";]+))/i;

interface RawPart {
  headers: string;
  bytes: Buffer;
}

/** The parts of a multipart body, their headers and bytes, as RFC 2046 delimits them. */
function rawParts(body: Buffer, boundary: string): RawPart[] {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const parts: RawPart[] = [];
  // The first delimiter may open the body without its CRLF.
  let at = body.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2))
    ? delimiter.length - 2
    : body.indexOf(delimiter) + delimiter.length;
  if (at < delimiter.length - 2) return parts;
  while (at < body.length && !(body[at] === 0x2d && body[at + 1] === 0x2d)) {
    const lineEnd = body.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const headerEnd = body.indexOf("\r\n\r\n", lineEnd);
    if (headerEnd < 0) break;
    const next = body.indexOf(delimiter, headerEnd + 4);
    if (next < 0) break;
    parts.push({
      headers: body.subarray(lineEnd + 2, headerEnd).toString("latin1"),
      bytes: body.subarray(headerEnd + 4, next),
    });
    at = next + delimiter.length;
  }
  return parts;
}

function header(headers: string, name: string): string | undefined {
  for (const line of headers.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return undefined;
}

/**
 * Reads the text fields of `body` (as the reader attached them) again from their bytes, each in its
 * charset; the name of the first that is not UTF-8 (nothing replaced then), or undefined.
 */
function rereadTextFields(body: Record<string, unknown>, bytes: Buffer, contentType: string): string | undefined {
  const match = BOUNDARY.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) return undefined;
  const parts = rawParts(bytes, boundary).flatMap((part) => {
    const disposition = header(part.headers, "content-disposition") ?? "";
    const name = NAME.exec(disposition);
    const type = header(part.headers, "content-type");
    // Files are refused by the reader; a JSON field is its parsed value.
    if (!name || /;\s*filename\*?=/i.test(disposition) || /^application\/json/i.test(type ?? "")) return [];
    return [{ name: name[1] ?? name[2] ?? "", charset: declaredCharset(type), bytes: part.bytes }];
  });
  const named = parts.find((part) => part.name === "_charset_");
  const formLabel = named ? named.bytes.toString("latin1").trim() : undefined;
  const values = new Map<string, string[]>();
  for (const part of parts) {
    const text = decodeText(part.bytes, formCharset(part.charset ?? formLabel));
    if (text === undefined) return part.name;
    values.set(part.name, [...(values.get(part.name) ?? []), text]);
  }
  for (const [name, read] of values) {
    const had = body[name];
    const count = Array.isArray(had) ? had.length : 1;
    if (
      read.length !== count ||
      !(typeof had === "string" || (Array.isArray(had) && had.every((v) => typeof v === "string")))
    )
      continue;
    body[name] = Array.isArray(had) ? read : read[0];
  }
  return undefined;
}

/** Refused as Fastify refuses an urlencoded body, so each family answers both alike. */
function fastifyError(code: string, statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { code, statusCode });
}

/** What the multipart reader's refusals mean here ("reach files limit" says neither what nor why). */
const FORM_LIMIT_TEXT: Readonly<Record<string, string>> = {
  FST_FILES_LIMIT:
    "A file part is not read here: send every parameter as a text field (only the email API takes files).",
  FST_PARTS_LIMIT: "The form has more than 100 parts.",
  FST_FIELDS_LIMIT: "The form has more than 100 fields.",
  FST_PROTO_VIOLATION: "A form field may not be named __proto__, constructor or prototype.",
};

/** The multipart reader's refusal with a message that says what is refused; any other error as it is. */
export function describedFormError(error: unknown): unknown {
  const { code } = error as { code?: unknown };
  const text = typeof code === "string" ? FORM_LIMIT_TEXT[code] : undefined;
  return text === undefined
    ? error
    : Object.assign(new Error(text), { code, statusCode: (error as { statusCode?: number }).statusCode });
}

/**
 * A form that could not be read: no length, too large, or refused by the multipart reader (a
 * file part, too many parts, a field named `__proto__`), all Fastify-style errors of a 4xx status.
 */
export function isUnreadableForm(error: unknown): boolean {
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  return typeof code === "string" && code.startsWith("FST_") && typeof statusCode === "number" && statusCode < 500;
}
