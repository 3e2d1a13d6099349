// Recipient numbers of an SMS send: Indian mobiles (from core/) and international numbers for route I,
// and the refusals of a number that is missing or not one.
import { parseE164 } from "../../base/core/e164.js";
import { GatewayError } from "../../base/core/errors.js";
import type { TrafficClass } from "../../base/core/traffic-class.js";

export { normalizeIndianMobile } from "../../base/core/indian-mobile.js";

/**
 * An international number for route I: digits with the country code (a leading + or 00 is
 * fine), valid for its country by libphonenumber's full metadata, and not Indian (Indian
 * numbers go on the domestic routes). Answered in E.164 without the +.
 */
export function normalizeInternational(raw: string): string | undefined {
  const parsed = parseE164(raw);
  return parsed === undefined || parsed.country === "IN" ? undefined : parsed.digits;
}

/** A number that is not one: 422 on v2, as WhatsApp's invalid_recipient is; -5 on the legacy families. */
export function invalidRecipient(raw: string, route: TrafficClass): GatewayError {
  return new GatewayError(
    "invalid_recipient",
    route === "international"
      ? `"${raw}" is not a valid international number with its country code (Indian numbers use routes T, P, PS).`
      : `"${raw}" is not a 10-digit Indian mobile number.`,
  );
}

/**
 * No number at all (left out, or blank): a missing required field, so 400 on v2 as a missing
 * sender ID or message is (the same code and -5 elsewhere).
 */
export function noRecipient(): GatewayError {
  return new GatewayError("invalid_recipient", "No recipient given.", { http: 400, field: "recipient" });
}
