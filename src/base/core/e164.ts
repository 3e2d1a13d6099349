// Phone numbers in E.164 (libphonenumber's full metadata): parsed, validated, with their country.
import { parsePhoneNumberFromString } from "libphonenumber-js/max";

export interface E164Number {
  /** Country code and national number, digits only (E.164 without the +). */
  digits: string;
  /** ISO 3166 country, e.g. IN. */
  country: string | undefined;
}

/**
 * A number with its country code (a leading + or 00, spaces, hyphens and parentheses are
 * fine), valid for its country by libphonenumber's full metadata; undefined otherwise. A bare
 * Indian 10-digit number is read as country code 9x and fails, as it should.
 */
export function parseE164(raw: string): E164Number | undefined {
  const compact = raw
    .trim()
    .replace(/[\s()-]/g, "")
    .replace(/^00/, "+");
  const withPlus = compact.startsWith("+") ? compact : `+${compact}`;
  if (!/^\+\d{6,15}$/.test(withPlus)) return undefined;
  const parsed = parsePhoneNumberFromString(withPlus);
  if (!parsed?.isValid()) return undefined;
  return { digits: parsed.number.slice(1), country: parsed.country };
}
