// A legacy call's JSON object read as the form it stands for: a number or a boolean is the text a
// form would carry (`{"type": 2}` is `type=2`, `{"phonenumber": 9876543210}` a number given), as
// the email and voice families read them. Dropped, `type` was not 2 and the hex was sent as text.
import { GatewayError } from "../../base/core/errors.js";

/** A value as form text; undefined for what a form cannot carry (objects, null), left as it is. */
function asText(value: unknown): unknown {
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return value;
}

/**
 * The body with its numbers and booleans (also those in a list) as text; a form's body, all text
 * already, comes back as it is. `inexact` names the first whole number past 2^53, which JSON.parse
 * has rounded (a 19-digit DLT ID written as a number): it cannot be read as the client wrote it.
 */
export function jsonScalarsAsText(body: unknown): { body: unknown; inexact?: string } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return { body };
  // Without a prototype: a parameter named __proto__ or constructor is a name like any other.
  const out: Record<string, unknown> = Object.create(null);
  let inexact: string | undefined;
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    const values = Array.isArray(value) ? value : [value];
    if (inexact === undefined && values.some((v) => Number.isInteger(v) && !Number.isSafeInteger(v))) inexact = name;
    out[name] = Array.isArray(value) ? value.map(asText) : asText(value);
  }
  return { body: out, inexact };
}

/** The refusal of a number `jsonScalarsAsText` could not read exactly, in the legacy dialect (-8). */
export function inexactNumber(name: string): GatewayError {
  return new GatewayError(
    "content_not_allowed",
    `Parameter ${JSON.stringify(name.slice(0, 40))} is a JSON number too large to read exactly (past 2^53); send it as a string. Nothing was sent or changed.`,
    { field: name },
  );
}
