import { parsePhoneNumberFromString } from "libphonenumber-js/max";

export { normalizeIndianMobile } from "../core/indian-mobile.js";

/**
 * An international number for route I: digits with the country code (a leading + or 00 is
 * fine), valid for its country by libphonenumber's full metadata, and not Indian (Indian
 * numbers go on the domestic routes). Answered in E.164 without the +.
 */
export function normalizeInternational(raw: string): string | undefined {
  const compact = raw.replace(/[\s()-]/g, "").replace(/^00/, "+");
  const withPlus = compact.startsWith("+") ? compact : `+${compact}`;
  if (!/^\+\d{6,15}$/.test(withPlus)) return undefined;
  const parsed = parsePhoneNumberFromString(withPlus);
  if (!parsed?.isValid() || parsed.country === "IN") return undefined;
  return parsed.number.slice(1);
}
