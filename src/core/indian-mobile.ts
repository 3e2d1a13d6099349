// Indian mobile numbers: 10 digits starting 6-9, also accepted written +91…, 91…, 0…, with
// spaces or hyphens. Stored and reported as the bare 10 digits. Used by the SMS rules and by
// the DND registry, so it lives below both.
const INDIAN_MOBILE = /^(?:\+91|91|0)?([6-9]\d{9})$/;

export function normalizeIndianMobile(raw: string): string | undefined {
  const compact = raw.replace(/[\s-]/g, "");
  return INDIAN_MOBILE.exec(compact)?.[1];
}
