// Indian mobile numbers: 10 digits starting 6-9, also accepted written +91…, 91…, 0…, with
// spaces or hyphens. Stored and reported as the bare 10 digits. Used by the SMS rules and by
// the DND registry, so it lives below both.
const INDIAN_MOBILE = /^(?:\+91|91|0)?([6-9]\d{9})$/;

export function normalizeIndianMobile(raw: string): string | undefined {
  const compact = raw.replace(/[\s-]/g, "");
  return INDIAN_MOBILE.exec(compact)?.[1];
}

/**
 * A stored recipient as digits with its country code, the form carriers and routes use: a bare
 * 10-digit Indian mobile number gets 91, an international one (stored as its digits) stays.
 */
export function internationalDigits(recipient: string): string {
  const digits = recipient.replace(/[\s()+-]/g, "");
  return /^[6-9]\d{9}$/.test(digits) ? `91${digits}` : digits;
}
