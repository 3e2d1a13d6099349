// Username+password logins for the legacy families. An argon2 check costs tens of ms of CPU,
// and legacy clients send the password on every request, so a verified pair is remembered
// for a short time under a keyed hash (never the password itself). The stored password hash is
// part of that key, so a password changed anywhere (even by another process) misses at once.
// argon2 (a native addon) is loaded at the first hash or check: a CLI command that only reads
// never pays for it.
import { createHmac, randomBytes } from "node:crypto";
import { GatewayError } from "../../base/core/errors.js";

let argon2: Promise<typeof import("@node-rs/argon2")> | undefined;
const loadArgon2 = () => {
  argon2 ??= import("@node-rs/argon2");
  return argon2;
};

export async function hashPassword(password: string): Promise<string> {
  return (await loadArgon2()).hash(password);
}

export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  const { verify } = await loadArgon2();
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Refuses a password holding a C0 control character (U+0000 to U+001F) or DEL, naming `field`
 * (decision 0024, addendum): no keyboard types one, a form or a terminal shows none, PostgreSQL takes no
 * NUL, and the verified-pair cache joins username and password with a NUL. Every path that sets a
 * password checks it (accounts, users, invitations, the own-password change); signing in does not.
 */
export function refusePasswordControls(password: string, field = "password"): void {
  const found = CONTROL.exec(password);
  if (!found) return;
  const code = `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  throw new GatewayError(
    "invalid_request",
    `${field} cannot contain control characters (U+0000 to U+001F, U+007F); it holds ${code}.`,
    { field },
  );
}

let dummyHash: Promise<string> | undefined;

/**
 * The hash an unknown username's password is checked against, made once per process from
 * random bytes (so no password matches it), with the same parameters as real hashes.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString("base64url"));
  return dummyHash;
}

/** Remembers verified username+password pairs for `ttlMs`; keyed by an HMAC with a per-process secret. */
export class VerifiedPairCache {
  private readonly secret = randomBytes(32);
  private readonly entries = new Map<string, { accountId: number; expires: number }>();
  private readonly byAccount = new Map<number, Set<string>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 100_000,
  ) {}

  /** The pair's key (an HMAC under this process's secret): also names a check of the pair in flight. */
  keyOf(username: string, password: string, passwordHash: string): string {
    // One update: each call into the hash costs more than joining the strings.
    return createHmac("sha256", this.secret).update(`${username}\0${password}\0${passwordHash}`).digest("base64url");
  }

  /** The account a pair was verified for, while `passwordHash` is still the account's stored hash. */
  lookup(username: string, password: string, passwordHash: string, now: number): number | undefined {
    if (this.ttlMs === 0) return undefined;
    const key = this.keyOf(username, password, passwordHash);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.forgetKey(key, entry.accountId);
      return undefined;
    }
    return entry.accountId;
  }

  remember(username: string, password: string, passwordHash: string, accountId: number, now: number): void {
    if (this.ttlMs === 0) return;
    if (this.entries.size >= this.maxEntries) this.clear();
    const key = this.keyOf(username, password, passwordHash);
    this.entries.set(key, { accountId, expires: now + this.ttlMs });
    let keys = this.byAccount.get(accountId);
    if (!keys) {
      keys = new Set();
      this.byAccount.set(accountId, keys);
    }
    keys.add(key);
  }

  private forgetKey(key: string, accountId: number): void {
    this.entries.delete(key);
    const keys = this.byAccount.get(accountId);
    keys?.delete(key);
    if (keys?.size === 0) this.byAccount.delete(accountId);
  }

  forgetAccount(accountId: number): void {
    for (const key of this.byAccount.get(accountId) ?? []) this.entries.delete(key);
    this.byAccount.delete(accountId);
  }

  clear(): void {
    this.entries.clear();
    this.byAccount.clear();
  }
}
