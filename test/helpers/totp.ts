// RFC 6238 codes computed in the tests by node:crypto alone, as an authenticator app would, so
// that the gateway's TOTP (otplib) is checked against a second implementation, not against itself.
import { createHmac } from "node:crypto";

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 (no padding needed) to bytes. */
export function base32Bytes(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.toUpperCase().replace(/[\s=]/g, "")) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The HOTP value (RFC 4226) of `key` at counter `step`, `digits` long. */
export function hotp(key: Buffer, step: number, digits = 6, algorithm: "sha1" | "sha256" | "sha512" = "sha1"): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac(algorithm, key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The six-digit TOTP code of a base32 secret at `atMs` (30-second steps from the epoch). */
export function totpCode(secret: string, atMs: number): string {
  return hotp(base32Bytes(secret), Math.floor(atMs / 1000 / 30));
}
