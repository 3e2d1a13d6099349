// JSON nesting, bounded before the parse. JSON.parse of a body of brackets only
// (`[[[[…]]]]`, 8 million deep within the 16 MiB body limit) held the event loop for 4–6 s, and
// a body is parsed before its request is authenticated (the API key may be in it): anyone could
// stall every tenant. No call of the gateway nests deeper than a few levels. A string that is
// not well-formed Unicode (a lone surrogate escape) is refused after the parse, bytes that are not
// UTF-8 before it (body-text.ts). An empty body
// (or one of whitespace only) is no body, whatever its Content-Type says: clients that set
// `Content-Type: application/json` on every request (requests.Session, axios and Guzzle
// defaults, Postman) send it on a DELETE too, which Fastify's parser refused as invalid JSON.
import type { FastifyInstance } from "fastify";
import { GatewayError } from "../core/errors.js";
import { loneSurrogateAt } from "../core/text-checks.js";
import { jsonBodyNotUtf8 } from "./body-text.js";

export const MAX_JSON_DEPTH = 64;
/** Below this size JSON.parse takes about a millisecond at most whatever the nesting: no scan. */
const SCAN_FROM_BYTES = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** True when `body`, read as JSON, opens more than `max` arrays or objects inside each other. */
export function nestsDeeperThan(body: Buffer | string, max = MAX_JSON_DEPTH): boolean {
  if (body.length < SCAN_FROM_BYTES) return false;
  // Bytes, not characters: indexing a Buffer is several times faster than charCodeAt on a
  // string read in chunks, and every character that matters here is ASCII.
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  let depth = 0;
  let inString = false;
  for (let at = 0; at < bytes.length; at++) {
    const c = bytes[at];
    if (inString) {
      if (c === BACKSLASH) at++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return false;
}

export function tooDeep(): GatewayError {
  return new GatewayError("invalid_request", `The JSON body nests arrays or objects more than ${MAX_JSON_DEPTH} deep.`);
}

/** True when `body` holds nothing but JSON whitespace (space, tab, line feed, carriage return), or nothing. */
export function isBlank(body: Buffer): boolean {
  for (const c of body) if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  return true;
}

/**
 * Replaces the server's JSON parser with Fastify's own behind the nesting check, with the
 * server's settings for `__proto__` and `constructor` keys. A blank body is no body (undefined):
 * a route without a body runs, one with a body schema answers what is missing (absent-body.ts).
 */
export function boundJsonNesting(app: FastifyInstance): void {
  const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig;
  const parse = app.getDefaultJsonParser(onProtoPoisoning ?? "error", onConstructorPoisoning ?? "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    if (isBlank(body as Buffer)) {
      done(null, undefined);
      return;
    }
    if (nestsDeeperThan(body)) {
      done(tooDeep(), undefined);
      return;
    }
    // JSON is UTF-8 (RFC 8259 8.1): a byte that is not is refused, never read as U+FFFD.
    const notUtf8 = jsonBodyNotUtf8(request, body as Buffer);
    if (notUtf8) {
      done(notUtf8, undefined);
      return;
    }
    // Fastify's parser (secure-json-parse) reads a Buffer as UTF-8 text.
    parse(request, body as unknown as string, (error, value) => {
      // Only an escape writes a lone surrogate (bytes that are not UTF-8 were refused above).
      const at = error || !mayEscapeSurrogate(body as Buffer) ? undefined : loneSurrogateAt(value);
      if (at) done(notUnicode(at), undefined);
      else done(error, value);
    });
  });
}

/** True when `body` holds a `\ud…` or `\uD…` escape, as every escaped surrogate is written. */
function mayEscapeSurrogate(body: Buffer): boolean {
  return body.includes("\\ud") || body.includes("\\uD");
}

function notUnicode(at: string): GatewayError {
  const field = /^[^.[]+/.exec(at)?.[0] ?? at;
  return new GatewayError(
    "invalid_request",
    `The JSON body's ${at} is not valid Unicode: a \\uD800 to \\uDFFF escape stands without its other half of a surrogate pair.`,
    { field },
  );
}
