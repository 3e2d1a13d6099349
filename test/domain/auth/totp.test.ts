// RFC 6238 appendix B: the published TOTP values for SHA-1, SHA-256 and SHA-512 (8 digits, 30 s
// steps, the seeds "1234567890" repeated to 20, 32 and 64 bytes), computed by otplib (what the
// gateway uses) and by the tests' own node:crypto implementation; then the gateway's check of a
// six-digit code: one step either way, never a used step again, only digits; recovery codes.
import { generateSync } from "otplib";
import { describe, expect, it } from "vitest";
import {
  isRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  totpStepOf,
  totpUri,
} from "../../../src/domain/auth/totp.js";
import { base32Bytes, hotp, totpCode } from "../../helpers/totp.js";

const SEEDS = {
  sha1: Buffer.from("12345678901234567890"),
  sha256: Buffer.from("12345678901234567890123456789012"),
  sha512: Buffer.from("1234567890123456789012345678901234567890123456789012345678901234"),
} as const;

// Time (s), and the values for SHA-1, SHA-256, SHA-512: RFC 6238, appendix B.
const VECTORS: Array<[number, string, string, string]> = [
  [59, "94287082", "46119246", "90693936"],
  [1111111109, "07081804", "68084774", "25091201"],
  [1111111111, "14050471", "67062674", "99943326"],
  [1234567890, "89005924", "91819424", "93441116"],
  [2000000000, "69279037", "90698825", "38618901"],
  [20000000000, "65353130", "77737706", "47863826"],
];

describe("TOTP (RFC 6238)", () => {
  it.each(VECTORS)("at %i s: the appendix B values, by otplib and by node:crypto", (time, sha1, sha256, sha512) => {
    const expected = { sha1, sha256, sha512 };
    for (const algorithm of ["sha1", "sha256", "sha512"] as const) {
      const byOtplib = generateSync({
        secret: new Uint8Array(SEEDS[algorithm]),
        algorithm,
        digits: 8,
        period: 30,
        epoch: time,
      });
      expect(byOtplib, `${algorithm} by otplib`).toBe(expected[algorithm]);
      expect(hotp(SEEDS[algorithm], Math.floor(time / 30), 8, algorithm), `${algorithm} by node:crypto`).toBe(
        expected[algorithm],
      );
    }
  });

  it("makes 20-byte base32 secrets and an otpauth:// URL an app reads", () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Bytes(secret)).toHaveLength(20);
    expect(newTotpSecret()).not.toBe(secret);
    const url = new URL(totpUri(secret, "acme"));
    expect(url.protocol).toBe("otpauth:");
    expect(url.host).toBe("totp");
    expect(decodeURIComponent(url.pathname)).toBe("/Switchboard:acme");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ secret, issuer: "Switchboard" });
  });

  it("accepts a code of the clock's step or the one either side, answers its step, and never a used step", () => {
    const secret = newTotpSecret();
    const now = Date.parse("2026-11-22T06:30:10Z");
    const step = Math.floor(now / 30_000);
    expect(totpStepOf(secret, totpCode(secret, now), now, null)).toBe(step);
    expect(totpStepOf(secret, totpCode(secret, now - 30_000), now, null)).toBe(step - 1);
    expect(totpStepOf(secret, totpCode(secret, now + 30_000), now, null)).toBe(step + 1);
    expect(totpStepOf(secret, totpCode(secret, now - 90_000), now, null)).toBeUndefined();
    expect(totpStepOf(secret, totpCode(secret, now + 90_000), now, null)).toBeUndefined();
    // The step accepted last, or an older one, is refused: a code seen once is spent.
    expect(totpStepOf(secret, totpCode(secret, now), now, step)).toBeUndefined();
    expect(totpStepOf(secret, totpCode(secret, now - 30_000), now, step - 1)).toBeUndefined();
    expect(totpStepOf(secret, totpCode(secret, now), now, step - 1)).toBe(step);
    for (const bad of ["", "12345", "1234567", "12345a", " 123456"])
      expect(totpStepOf(secret, bad, now, null)).toBeUndefined();
  });

  it("makes ten distinct recovery codes, looked up case, dashes and look-alikes aside", () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) {
      expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/);
      expect(isRecoveryCode(code)).toBe(true);
    }
    const code = codes[0]!;
    expect(recoveryCodeHash(code.toUpperCase().replace("-", " "))).toBe(recoveryCodeHash(code));
    expect(recoveryCodeHash("0000o-11111")).toBe(recoveryCodeHash("00000-1il11"));
    expect(recoveryCodeHash(codes[1]!)).not.toBe(recoveryCodeHash(code));
    expect(isRecoveryCode("123456")).toBe(false);
  });
});
