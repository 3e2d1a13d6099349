// Percent-encoding the legacy family reads: UTF-8, as URL encoding is (WHATWG URL, RFC 3986).
// A parameter whose escapes are not UTF-8 (ISO-8859-1's `caf%E9`, Windows-1252's `%93`) is
// refused, -8 (-9 for the XML API's xmlstring), never read as other text: a Latin-1 guess would
// send another text than a Windows-1252 client meant, and the parsers keep such a value as its
// raw escapes, which would be sent and charged as `caf%E9` (decision 0186). An escape that is not
// one (`%ZZ`, a lone `%`) stays literal text, as browsers and URLSearchParams read it. The query is
// checked as the voice and email families check theirs (queryNotUtf8, base/http/body-text.ts).
import { GatewayError } from "../../base/core/errors.js";

/** The refusal of a parameter whose escapes are not UTF-8 (base/http/body-text.ts names it), in the legacy dialect. */
export function notUtf8(name: string): GatewayError {
  const shown = JSON.stringify(name.slice(0, 40));
  const reason = `Parameter ${shown} is not UTF-8 once percent-decoded (ISO-8859-1 or Windows-1252 bytes?): percent-encode the UTF-8 bytes of the text (é is %C3%A9, not %E9). Nothing was sent or changed.`;
  return name.toLowerCase() === "xmlstring"
    ? new GatewayError("malformed_xml", `Malformed XML received: ${reason}`)
    : new GatewayError("content_not_allowed", reason);
}
