// The text of a request body: UTF-8 unless the body declares otherwise (decision 0186's
// addendum). JSON is UTF-8 whatever its Content-Type says (RFC 8259 8.1: it has no charset
// parameter); bytes that are not UTF-8 are refused, never read as U+FFFD, which could not be
// told from a U+FFFD the client meant. A form (urlencoded, or a multipart text field) may
// declare ISO-8859-1 or Windows-1252 (`charset=`, a part's own Content-Type, `_charset_`): it
// is decoded as declared, as the WHATWG Encoding Standard reads those labels (all three are
// Windows-1252 there: 0x80-0x9F are €, curly quotes and the rest, not C1 controls no text
// holds). Any other charset is refused: the gateway does not guess.
import { isUtf8 } from "node:buffer";
import { createRequire } from "node:module";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { GatewayError } from "../core/errors.js";

export type FormCharset = "utf-8" | "windows-1252";

const CHARSET = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i;
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });
/** An escape of a byte outside ASCII: only these can make a query other than UTF-8. */
const HIGH_ESCAPE = /%[89a-f][0-9a-f]/i;
/** iconv-lite, loaded by the first form declared Windows-1252 or ISO-8859-1 (its tables are not wanted in every thread). */
let iconv: typeof import("iconv-lite") | undefined;

/** The charset a Content-Type (or a form's `_charset_` value) names, undefined when it names none. */
export function declaredCharset(contentType: string | undefined): string | undefined {
  return contentType === undefined ? undefined : CHARSET.exec(contentType)?.[2];
}

/** The charset a form is read in: `label` (UTF-8 when none), or a refusal naming it. */
export function formCharset(label: string | undefined): FormCharset {
  if (label === undefined) return "utf-8";
  let encoding: string;
  try {
    encoding = new TextDecoder(label).encoding;
  } catch {
    encoding = "";
  }
  if (encoding === "utf-8" || encoding === "windows-1252") return encoding;
  throw new GatewayError(
    "invalid_request",
    `The form's charset ${JSON.stringify(label.slice(0, 40))} is not read here: send UTF-8 (or declare ISO-8859-1 or Windows-1252 for bytes in those). Nothing was sent or changed.`,
    { field: "charset" },
  );
}

/** The offset of the first byte of `bytes` that is not part of a well-formed UTF-8 sequence, or -1. */
function notUtf8At(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  let at = 0;
  while (at < bytes.length) {
    const lead = bytes[at]!;
    const length =
      lead < 0x80
        ? 1
        : lead >= 0xc2 && lead <= 0xdf
          ? 2
          : lead >= 0xe0 && lead <= 0xef
            ? 3
            : lead >= 0xf0 && lead <= 0xf4
              ? 4
              : 0;
    if (length === 0 || at + length > bytes.length) return at;
    try {
      STRICT_UTF8.decode(bytes.subarray(at, at + length));
    } catch {
      return at;
    }
    at += length;
  }
  return -1;
}

/** `bytes` as text in `charset`; undefined when the charset is UTF-8 and the bytes are not. */
export function decodeText(bytes: Uint8Array, charset: FormCharset): string | undefined {
  // iconv-lite's table: Node 20's TextDecoder("windows-1252") reads 0x80-0x9F as ISO-8859-1's C1 controls.
  if (charset === "windows-1252") {
    iconv ??= createRequire(import.meta.url)("iconv-lite") as typeof import("iconv-lite");
    return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), "win1252");
  }
  if (!isUtf8(bytes)) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}

/** Why a field (or a whole body) is refused: its bytes are not UTF-8; `offset` in the body when known. */
export function notUtf8Text(what: string, field?: string, offset?: number, declared?: string): GatewayError {
  const where = offset === undefined ? "" : ` (byte ${offset})`;
  const declaredNote =
    declared && formCharsetOrUndefined(declared) !== "utf-8"
      ? ` The charset=${declared.slice(0, 40)} it declares is not read: JSON is UTF-8 (RFC 8259).`
      : "";
  return new GatewayError(
    "invalid_request",
    `${what} is not UTF-8${where}: ISO-8859-1 or Windows-1252 bytes? Send the text as UTF-8 (é is the bytes C3 A9, not E9)${field === undefined ? "" : ", or declare the form's charset"}.${declaredNote} Nothing was sent or changed.`,
    field === undefined ? {} : { field },
  );
}

function formCharsetOrUndefined(label: string): FormCharset | undefined {
  try {
    return formCharset(label);
  } catch {
    return undefined;
  }
}

const PLUS = 0x2b;
const PERCENT = 0x25;
const AMPERSAND = 0x26;
const EQUALS = 0x3d;

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** One name or value of an urlencoded body as bytes: `+` a space, `%XX` its byte, `%ZZ` literal. */
function unescapeBytes(bytes: Buffer, from: number, to: number): Buffer {
  if (bytes.subarray(from, to).every((c) => c !== PLUS && c !== PERCENT)) return bytes.subarray(from, to);
  const out = Buffer.allocUnsafe(to - from);
  let length = 0;
  for (let at = from; at < to; at++) {
    const c = bytes[at]!;
    if (c === PLUS) out[length++] = 0x20;
    else if (c === PERCENT && at + 2 < to && hexValue(bytes[at + 1]!) >= 0 && hexValue(bytes[at + 2]!) >= 0) {
      out[length++] = hexValue(bytes[at + 1]!) * 16 + hexValue(bytes[at + 2]!);
      at += 2;
    } else out[length++] = c;
  }
  return out.subarray(0, length);
}

export interface UrlencodedForm {
  /** The form by name (a repeated name: its values in order), null-prototype. */
  form: Record<string, string | string[]>;
  /** The first parameter whose bytes (raw or percent-escaped) are not UTF-8, when the charset is UTF-8. */
  notUtf8?: string;
}

/**
 * An urlencoded body read from its bytes: each name and value unescaped to bytes, then decoded in
 * `charset`, so raw bytes and escapes are read alike. A parameter that is not UTF-8 (in a UTF-8
 * form) is named, and kept as its bytes would be shown replaced: the caller refuses it.
 */
function readUrlencoded(body: Buffer, charset: FormCharset): UrlencodedForm {
  const form: Record<string, string | string[]> = Object.create(null);
  let notUtf8: string | undefined;
  let start = 0;
  while (start <= body.length) {
    let end = body.indexOf(AMPERSAND, start);
    if (end < 0) end = body.length;
    if (end > start) {
      let equals = body.indexOf(EQUALS, start);
      if (equals < 0 || equals > end) equals = end;
      const nameBytes = unescapeBytes(body, start, equals);
      const valueBytes = equals < end ? unescapeBytes(body, equals + 1, end) : Buffer.alloc(0);
      let name = decodeText(nameBytes, charset);
      let value = decodeText(valueBytes, charset);
      if (name === undefined || value === undefined) {
        name ??= nameBytes.toString("utf8");
        value ??= valueBytes.toString("utf8");
        notUtf8 ??= name;
      }
      const had = form[name];
      if (had === undefined) form[name] = value;
      else if (Array.isArray(had)) had.push(value);
      else form[name] = [had, value];
    }
    start = end + 1;
  }
  return notUtf8 === undefined ? { form } : { form, notUtf8 };
}

/**
 * The first parameter of a request target's query whose escapes are not UTF-8 (ISO-8859-1's
 * `caf%E9`), undefined when none. A query has no charset: it is UTF-8 (WHATWG URL), and is read as
 * a UTF-8 form is. Node's parser takes only ASCII in a request target, so its characters are its bytes.
 */
export function queryNotUtf8(url: string | undefined): string | undefined {
  const at = url?.indexOf("?") ?? -1;
  if (at < 0 || !HIGH_ESCAPE.test(url!)) return undefined;
  return readUrlencoded(Buffer.from(url!.slice(at + 1), "latin1"), "utf-8").notUtf8;
}

/** A request's urlencoded body, read in the charset its Content-Type declares (a charset not read is refused). */
export function urlencodedBodyOf(request: FastifyRequest, body: Buffer): UrlencodedForm {
  return readUrlencoded(body, formCharset(declaredCharset(request.headers["content-type"])));
}

/** The refusal of a JSON body whose bytes are not UTF-8, naming the first bad byte; undefined when they are. */
export function jsonBodyNotUtf8(request: FastifyRequest, body: Buffer): GatewayError | undefined {
  const bad = notUtf8At(body);
  if (bad < 0) return undefined;
  return notUtf8Text("The JSON body", undefined, bad, declaredCharset(request.headers["content-type"]));
}

/**
 * The server's urlencoded reader: read from the body's bytes in
 * its declared charset; a parameter that is not UTF-8 is refused, 400 naming it.
 */
export function acceptUrlencoded(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "buffer", bodyLimit },
    (request, body, done) => {
      try {
        const { form, notUtf8 } = urlencodedBodyOf(request, body as Buffer);
        if (notUtf8 === undefined) done(null, form);
        else done(notUtf8Parameter(notUtf8), undefined);
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}

/** The refusal of a query parameter `queryNotUtf8` named (400 naming it; each family answers it in its code). */
export function notUtf8Query(name: string): GatewayError {
  return new GatewayError(
    "invalid_request",
    `The query's parameter ${JSON.stringify(name.slice(0, 40))} is not UTF-8 once percent-decoded (ISO-8859-1 or Windows-1252 bytes?): percent-encode the UTF-8 bytes of the text (é is %C3%A9, not %E9). Nothing was sent or changed.`,
    { field: name },
  );
}

/** The refusal of a form parameter `readUrlencoded` named. */
export function notUtf8Parameter(name: string): GatewayError {
  return notUtf8Text(`The form's parameter ${JSON.stringify(name.slice(0, 40))}`, name);
}
