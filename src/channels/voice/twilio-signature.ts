// X-Twilio-Signature: base64 HMAC-SHA1, keyed by the auth token, of the full URL the provider
// requested followed by every POST parameter, sorted by name, as name+value (a repeated name
// contributes each of its values, sorted).
import { createHmac } from "node:crypto";
import { sameBytes } from "../../base/core/same-bytes.js";

export type FormParams = Record<string, string | readonly string[] | undefined>;

export function twilioSignature(authToken: string, url: string, params: FormParams): string {
  let data = url;
  for (const name of Object.keys(params).sort()) {
    const value = params[name];
    if (value === undefined) continue;
    const values = typeof value === "string" ? [value] : [...value].sort();
    for (const one of values) data += name + one;
  }
  return createHmac("sha1", authToken).update(data, "utf8").digest("base64");
}

export function validTwilioSignature(
  authToken: string,
  signature: string | undefined,
  url: string,
  params: FormParams,
): boolean {
  if (!signature) return false;
  return sameBytes(signature, twilioSignature(authToken, url, params));
}
