// Recipient numbers of an SMS send: Indian mobiles (from core/) and international numbers for route I.
import { parseE164 } from "../../base/core/e164.js";

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
