// Time-based one-time passwords (RFC 6238) for the console's second factor, by otplib: a secret
// of 20 random bytes in base32, the `otpauth://` URL an authenticator app scans, and a code's
// check within one time step of the clock either way. A code matches a time step (T); the caller
// keeps the last step accepted and passes it back, so that a code (or an older one) seen once is
// refused within its window. Recovery codes are random too: stored as SHA-256, never as written.
import { createHash, randomBytes } from "node:crypto";
import { generateSecret, generateURI, verifySync } from "otplib";

/** The authenticator app's name for the gateway, in the `otpauth://` URL. */
export const TOTP_ISSUER = "Switchboard";
/** Seconds a code stands for (RFC 6238's X), the default of every authenticator app. */
export const TOTP_PERIOD = 30;
const SECRET_BYTES = 20;
/** A code of the step before or after the clock's is accepted too: clocks drift, people type slowly. */
const TOLERANCE_SECONDS = TOTP_PERIOD;

export function newTotpSecret(): string {
  return generateSecret({ length: SECRET_BYTES });
}

/** The URL an authenticator app reads from the QR code: issuer, `account:login`, secret, 6 digits, 30 s. */
export function totpUri(secret: string, label: string): string {
  return generateURI({ issuer: TOTP_ISSUER, label, secret, period: TOTP_PERIOD, digits: 6, algorithm: "sha1" });
}

/**
 * The time step `code` is valid for at `nowMs`, or undefined: not six digits, wrong, or of a step
 * at or before `afterStep` (already used).
 */
export function totpStepOf(secret: string, code: string, nowMs: number, afterStep: number | null): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const result = verifySync({
    secret,
    token: code,
    epoch: Math.floor(nowMs / 1000),
    period: TOTP_PERIOD,
    epochTolerance: TOLERANCE_SECONDS,
    ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
  });
  return result.valid && "timeStep" in result ? result.timeStep : undefined;
}

/** How many recovery codes a login gets at enrolment (each single use). */
export const RECOVERY_CODES = 10;
/** Crockford's base32 (no i, l, o, u): a byte's low 5 bits pick one of its 32 characters evenly. */
const RECOVERY_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** Ten codes of ten characters (50 bits each), written `xxxxx-xxxxx`. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((byte) => RECOVERY_ALPHABET[byte & 31]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** What a recovery code is stored and looked up as: case, spaces and dashes aside; o read as 0, i and l as 1. */
export function recoveryCodeHash(code: string): string {
  const normalized = code.toLowerCase().replace(/[\s-]/g, "").replace(/o/g, "0").replace(/[il]/g, "1");
  return createHash("sha256").update(normalized).digest("hex");
}

/** Whether `code` is given as a recovery code: anything but six digits (a TOTP code). */
export function isRecoveryCode(code: string): boolean {
  return !/^\d{6}$/.test(code);
}
