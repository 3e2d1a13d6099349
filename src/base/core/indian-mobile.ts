// Indian mobile numbers: 10 digits starting 6-9, also accepted written +91…, 91…, 0…, with
// spaces or hyphens. Stored and reported as the bare 10 digits. Used by the SMS rules and by
// the DND registry, so it lives below both.
const INDIAN_MOBILE = /^(?:\+91|91|0)?([6-9]\d{9})$/;

export function normalizeIndianMobile(raw: string): string | undefined {
  const compact = raw.replace(/[\s-]/g, "");
  return INDIAN_MOBILE.exec(compact)?.[1];
}

/**
 * A stored SMS recipient as digits with its country code, the form carriers and routes use: an
 * Indian one (stored as its 10 digits) gets 91; an international one is stored with its country
 * code already, and may itself be 10 digits (Singapore's 65 9123 4567), so it stays as it is.
 */
export function internationalDigits(recipient: string, route: string): string {
  const digits = recipient.replace(/[\s()+-]/g, "");
  return route !== "international" && /^[6-9]\d{9}$/.test(digits) ? `91${digits}` : digits;
}
