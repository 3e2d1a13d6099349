// Parameters the legacy family refuses before it reads them. Percent-encoding is UTF-8, as URL
// encoding is (WHATWG URL, RFC 3986): a parameter whose escapes are not UTF-8 (ISO-8859-1's
// `caf%E9`, Windows-1252's `%93`) is refused, -8 (-9 for the XML API's xmlstring), never read as
// other text: a Latin-1 guess would send another text than a Windows-1252 client meant, and the
// parsers keep such a value as its raw escapes, which would be sent and charged as `caf%E9`
// (decision 0186). An escape that is not one (`%ZZ`, a lone `%`) stays literal text, as browsers
// and URLSearchParams read it. The query is checked as the voice and email families check theirs
// (queryNotUtf8, base/http/body-text.ts). A parameter given twice with different values (or as a
// JSON array), but `phonenumber` (and its other name `mobile`), is refused the same way (base/http/param-bags.ts).
import { GatewayError } from "../../base/core/errors.js";
import { ambiguityReason } from "../../base/http/param-bags.js";

/** The refusal of a parameter whose escapes are not UTF-8 (base/http/body-text.ts names it), in the legacy dialect. */
export function notUtf8(name: string): GatewayError {
  const shown = JSON.stringify(name.slice(0, 40));
  const reason = `Parameter ${shown} is not UTF-8 once percent-decoded (ISO-8859-1 or Windows-1252 bytes?): percent-encode the UTF-8 bytes of the text (é is %C3%A9, not %E9). Nothing was sent or changed.`;
  return name.toLowerCase() === "xmlstring"
    ? new GatewayError("malformed_xml", `Malformed XML received: ${reason}`)
    : new GatewayError("content_not_allowed", reason);
}

/** The credentials: given twice with different values, no login can be chosen (-7, before any is tried). */
const LEGACY_CREDENTIALS: ReadonlySet<string> = new Set(["username", "password", "api_key", "apikey"]);

/**
 * Refused before the caller is known: the credentials, and the XML document, which may hold them
 * (-9, before it is parsed).
 */
export const LEGACY_BEFORE_CALLER: ReadonlySet<string> = new Set([...LEGACY_CREDENTIALS, "xmlstring"]);

/** Every other parameter a legacy call reads; a name no call reads is ignored, repeated or not. */
export const LEGACY_PARAMETERS: ReadonlySet<string> = new Set([
  "sender_id",
  "senderid",
  "entityid",
  "templateid",
  "shorturl",
  "route",
  "message",
  "type",
  "text",
  "schedule",
  "dlt_entity_id",
  "dlt_template_id",
  "broadcastid",
  "date",
  "template_name",
  "template_message",
  "notes",
  "limit",
  "offset",
]);

/** The refusal of a parameter given twice with different values: -7 for a credential, else as notUtf8's. */
export function repeatedParameter(name: string): GatewayError {
  const reason = ambiguityReason(name);
  if (LEGACY_CREDENTIALS.has(name)) return new GatewayError("unauthorized", reason, { field: name });
  return name === "xmlstring"
    ? new GatewayError("malformed_xml", `Malformed XML received: ${reason}`, { field: name })
    : new GatewayError("content_not_allowed", reason, { field: name });
}
