// Percent-encoding the legacy family reads: UTF-8, as URL encoding is (WHATWG URL, RFC 3986).
// A parameter whose escapes are not UTF-8 (ISO-8859-1's `caf%E9`, Windows-1252's `%93`) is
// refused, -8 (-9 for the XML API's xmlstring), never read as other text: a Latin-1 guess would
// send another text than a Windows-1252 client meant, and the parsers keep such a value as its
// raw escapes, which would be sent and charged as `caf%E9` (decision 0186). An escape that is not
// one (`%ZZ`, a lone `%`) stays literal text, as browsers and URLSearchParams read it.
import { GatewayError } from "../../base/core/errors.js";

/** An escape of a byte outside ASCII: only these can make a value other than UTF-8. */
const HIGH_ESCAPE = /%[89a-f][0-9a-f]/i;
const ESCAPE = /%([0-9a-f]{2})/gi;
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Whether the bytes of `text`'s escapes, and of the rest as its own UTF-8, are UTF-8. */
function escapesAreUtf8(text: string): boolean {
  const parts: Buffer[] = [];
  let last = 0;
  for (const match of text.matchAll(ESCAPE)) {
    parts.push(Buffer.from(text.slice(last, match.index), "utf8"), Buffer.from([Number.parseInt(match[1]!, 16)]));
    last = match.index + 3;
  }
  parts.push(Buffer.from(text.slice(last), "utf8"));
  try {
    STRICT_UTF8.decode(Buffer.concat(parts));
    return true;
  } catch {
    return false;
  }
}

/** The name of the first parameter of a query string whose escapes are not UTF-8; undefined when none (a form: base/http/body-text.ts). */
export function notUtf8Parameter(encoded: string): string | undefined {
  if (!HIGH_ESCAPE.test(encoded)) return undefined;
  for (const pair of encoded.split("&")) {
    if (!HIGH_ESCAPE.test(pair) || escapesAreUtf8(pair)) continue;
    return [...new URLSearchParams(pair).keys()][0] ?? "";
  }
  return undefined;
}

/** The query string of a request target ("" when none). */
export function queryOf(url: string | undefined): string {
  const at = url?.indexOf("?") ?? -1;
  return at < 0 ? "" : url!.slice(at + 1);
}

/** The refusal of a parameter `notUtf8Parameter` named, in the legacy dialect. */
export function notUtf8(name: string): GatewayError {
  const shown = JSON.stringify(name.slice(0, 40));
  const reason = `Parameter ${shown} is not UTF-8 once percent-decoded (ISO-8859-1 or Windows-1252 bytes?): percent-encode the UTF-8 bytes of the text (é is %C3%A9, not %E9). Nothing was sent or changed.`;
  return name.toLowerCase() === "xmlstring"
    ? new GatewayError("malformed_xml", `Malformed XML received: ${reason}`)
    : new GatewayError("content_not_allowed", reason);
}
