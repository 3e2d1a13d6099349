// One-time codes: drawn from the CSPRNG, kept only as an HMAC keyed by this installation's verify
// secret (in the `settings` table, made on first use), compared in constant time, and sealed
// (AES-256-GCM under a key derived from the same secret) for the dispatcher to put in the text
// it hands the carrier. The message row holds the text masked (docs/decisions/0116).
import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomInt } from "node:crypto";
import { sameBytes } from "../../base/core/same-bytes.js";
import { installationSecret } from "../../base/store/installation-secrets.js";
import type { Store } from "../../base/store/store.js";

const SECRET_KEY = "verify_code_secret";
/** What stands for each digit of a code in the text the gateway stores and shows. */
export const MASK_CHAR = "\u2022";

/** The verify secret of this installation; created once, shared by every process. */
export function verifySecret(store: Store): Promise<Buffer> {
  return installationSecret(store, SECRET_KEY);
}

export function newCode(length: number): string {
  return String(randomInt(0, 10 ** length)).padStart(length, "0");
}

export class CodeKeeper {
  private readonly sealKey: Buffer;

  constructor(private readonly secret: Buffer) {
    this.sealKey = createHmac("sha256", secret).update("verify-seal").digest();
  }

  /** The code's HMAC, bound to its verification so a hash says nothing about another's code. */
  hash(verificationId: string, code: string): string {
    return createHmac("sha256", this.secret).update(`${verificationId}\n${code}`).digest("hex");
  }

  /** Whether `given` is the code whose hash is `expected`, in constant time. */
  matches(verificationId: string, given: string, expected: string): boolean {
    return sameBytes(Buffer.from(this.hash(verificationId, given), "hex"), Buffer.from(expected, "hex"));
  }

  seal(verificationId: string, code: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.sealKey, iv);
    cipher.setAAD(Buffer.from(verificationId));
    const body = Buffer.concat([cipher.update(code, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
  }

  unseal(verificationId: string, sealed: string): string {
    const raw = Buffer.from(sealed, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", this.sealKey, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(verificationId));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  }
}

/** The text with the code at `offset` masked, and where it was. */
export interface CodeText {
  clear: string;
  masked: string;
  offset: number;
}

/** How a code is written in a text: its digits, or spaced out to be spoken one by one. */
export type CodeForm = "plain" | "spaced";

export function writtenCode(code: string, form: CodeForm): string {
  return form === "spaced" ? [...code].join(" ") : code;
}

/** A text that holds `{#var#}` once, with the code in its place. */
export function textWithCode(template: string, code: string, form: CodeForm): CodeText {
  const written = writtenCode(code, form);
  const offset = template.indexOf("{#var#}");
  const before = template.slice(0, offset);
  const after = template.slice(offset + "{#var#}".length);
  return {
    clear: `${before}${written}${after}`,
    masked: `${before}${written.replace(/\d/g, MASK_CHAR)}${after}`,
    offset,
  };
}

/** The clear text of a stored (masked) text, given the code and where it stands. */
export function revealCode(masked: string, code: string, offset: number, form: CodeForm): string {
  const written = writtenCode(code, form);
  return `${masked.slice(0, offset)}${written}${masked.slice(offset + written.length)}`;
}
