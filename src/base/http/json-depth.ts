// JSON nesting, bounded before the parse. JSON.parse of a body of brackets only
// (`[[[[…]]]]`, 8 million deep within the 16 MiB body limit) held the event loop for 4–6 s, and
// a body is parsed before its request is authenticated (the API key may be in it): anyone could
// stall every tenant. No call of the gateway nests deeper than a few levels.
import type { FastifyInstance } from "fastify";
import { GatewayError } from "../core/errors.js";

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

/**
 * Replaces the server's JSON parser with Fastify's own behind the nesting check, with the
 * server's settings for `__proto__` and `constructor` keys.
 */
export function boundJsonNesting(app: FastifyInstance): void {
  const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig;
  const parse = app.getDefaultJsonParser(onProtoPoisoning ?? "error", onConstructorPoisoning ?? "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    if (nestsDeeperThan(body)) {
      done(tooDeep(), undefined);
      return;
    }
    // Fastify's parser (secure-json-parse) reads a Buffer as UTF-8 text.
    parse(request, body as unknown as string, done);
  });
}
