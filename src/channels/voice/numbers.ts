// Phone numbers of voice calls. A callee or caller may be written like an SMS number (an Indian
// mobile's 10 digits, optionally with +91, 91 or 0), as an Indian landline with its trunk 0 and
// STD code (080 4711 0000) or 91 before the STD code, or in international form (+ or 00, then
// the country code). A bare 10 digits must be a mobile: libphonenumber's Indian landline
// pattern would take almost any 10 digits, so a mistyped mobile would ring a stranger's line.
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";

export interface CallNumber {
  /** +<country code><number>: what the provider dials, and how caller numbers are stored. */
  e164: string;
  /** How a message row stores the callee: an Indian mobile as its 10 digits (like SMS), else `e164`. */
  recipient: string;
  /** ISO 3166 country; undefined for non-geographic numbers. */
  country: string | undefined;
  /** Premium-rate numbers are never called: the caller would pay far more than a call unit. */
  premium: boolean;
}

const WRITTEN = /^\+?[\d\s().-]{3,30}$/;

export function parseCallNumber(raw: string): CallNumber | undefined {
  const text = raw.trim();
  if (!WRITTEN.test(text)) return undefined;
  const mobile = normalizeIndianMobile(text);
  if (mobile) return { e164: `+91${mobile}`, recipient: mobile, country: "IN", premium: false };
  const compact = text.replace(/[\s().-]/g, "");
  const international = compact.startsWith("+")
    ? compact
    : compact.startsWith("00")
      ? `+${compact.slice(2)}`
      : /^0\d{10}$/.test(compact)
        ? `+91${compact.slice(1)}`
        : /^91\d{10}$/.test(compact)
          ? `+${compact}`
          : undefined;
  if (!international || !/^\+\d{6,15}$/.test(international)) return undefined;
  const parsed = parsePhoneNumberFromString(international);
  if (!parsed?.isValid()) return undefined;
  return {
    e164: parsed.number,
    recipient: parsed.number,
    country: parsed.country,
    premium: parsed.getType() === "PREMIUM_RATE",
  };
}

/** The E.164 form of a stored callee (an Indian mobile is stored without its +91). */
export function dialString(recipient: string): string {
  return /^\d{10}$/.test(recipient) ? `+91${recipient}` : recipient;
}
