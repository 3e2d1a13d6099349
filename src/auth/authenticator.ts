// Turns credentials (an API key, or username+password) into the calling account.
// Lookups are cached in memory; revoking a key, changing a password or an account's state
// signals every process (NOTIFY on PostgreSQL) to drop what it remembers at once.
import type { Clock } from "../core/clock.js";
import { GatewayError } from "../core/errors.js";
import type { AccountRole, AccountStatus } from "../store/schema.js";
import type { Store } from "../store/store.js";
import { hashApiKey } from "./api-keys.js";
import { passwordMatches, VerifiedPairCache } from "./passwords.js";

export interface Principal {
  accountId: number;
  username: string;
  role: AccountRole;
  status: AccountStatus;
  timeZone: string;
  /** Set when the caller used an API key. */
  keyId?: number;
  /** Requests per minute allowed for that key; 0 = unlimited. */
  rateLimit?: number;
}

export interface AuthSettings {
  passwordCacheSeconds: number;
  loginLockThreshold: number;
  loginLockMinutes: number;
}

const AUTH_CHANNEL = "auth_changed";
const KEY_CACHE_MS = 30_000;
const KEY_CACHE_MAX = 50_000;

export class Authenticator {
  private readonly keyCache = new Map<string, { principal: Principal; expires: number }>();
  private readonly pairs: VerifiedPairCache;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly settings: AuthSettings,
  ) {
    this.pairs = new VerifiedPairCache(settings.passwordCacheSeconds * 1000);
    this.unsubscribe = store.signals.listen(AUTH_CHANNEL, (payload) => this.forget(payload));
  }

  close(): void {
    this.unsubscribe();
  }

  /** Resolves an API key; throws `unauthorized` for unknown or revoked keys. */
  async byApiKey(key: string): Promise<Principal> {
    const keyHash = hashApiKey(key);
    const now = Date.now();
    const cached = this.keyCache.get(keyHash);
    if (cached && cached.expires > now) return cached.principal;

    const row = await this.store.db
      .selectFrom("api_keys")
      .innerJoin("accounts", "accounts.id", "api_keys.account_id")
      .select([
        "api_keys.id as key_id",
        "api_keys.rate_limit",
        "api_keys.revoked_at",
        "accounts.id as account_id",
        "accounts.username",
        "accounts.role",
        "accounts.status",
        "accounts.time_zone",
      ])
      .where("api_keys.key_hash", "=", keyHash)
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) throw new GatewayError("unauthorized");

    const principal: Principal = {
      accountId: row.account_id,
      username: row.username,
      role: row.role,
      status: row.status,
      timeZone: row.time_zone,
      keyId: row.key_id,
      rateLimit: row.rate_limit,
    };
    if (this.keyCache.size >= KEY_CACHE_MAX) this.keyCache.clear();
    this.keyCache.set(keyHash, { principal, expires: now + KEY_CACHE_MS });
    return principal;
  }

  /**
   * Checks a username+password. Repeated failures lock the account for a while
   * (`account_locked`, -16); a locked account is refused even with the right password.
   */
  async byPassword(username: string, password: string): Promise<Principal> {
    const account = await this.store.db
      .selectFrom("accounts")
      .select(["id", "username", "password_hash", "role", "status", "time_zone", "failed_logins", "locked_until"])
      .where("username", "=", username)
      .executeTakeFirst();
    if (!account) throw new GatewayError("unauthorized", "Authentication failed: wrong username or password.");

    const now = this.clock.now().getTime();
    if (account.locked_until !== null && account.locked_until > now) {
      throw new GatewayError("account_locked", "User account locked after repeated failed logins; try again later.");
    }
    const principal: Principal = {
      accountId: account.id,
      username: account.username,
      role: account.role,
      status: account.status,
      timeZone: account.time_zone,
    };
    if (this.pairs.lookup(username, password, Date.now()) === account.id) return principal;

    if (!(await passwordMatches(account.password_hash, password))) {
      await this.recordFailedLogin(account.id, account.failed_logins + 1, now);
      throw new GatewayError("unauthorized", "Authentication failed: wrong username or password.");
    }
    if (account.failed_logins > 0 || account.locked_until !== null) {
      await this.store.db
        .updateTable("accounts")
        .set({ failed_logins: 0, locked_until: null })
        .where("id", "=", account.id)
        .execute();
    }
    this.pairs.remember(username, password, account.id, Date.now());
    return principal;
  }

  private async recordFailedLogin(accountId: number, failures: number, now: number): Promise<void> {
    const threshold = this.settings.loginLockThreshold;
    const lock = threshold > 0 && failures >= threshold;
    await this.store.db
      .updateTable("accounts")
      .set(
        lock
          ? { failed_logins: 0, locked_until: now + this.settings.loginLockMinutes * 60_000 }
          : { failed_logins: failures },
      )
      .where("id", "=", accountId)
      .execute();
  }

  private forget(payload: string): void {
    const [kind, value] = payload.split(":", 2);
    if (kind === "key" && value) {
      this.keyCache.delete(value);
      return;
    }
    if (kind === "account" && value) {
      const accountId = Number(value);
      this.pairs.forgetAccount(accountId);
      for (const [hash, entry] of this.keyCache) {
        if (entry.principal.accountId === accountId) this.keyCache.delete(hash);
      }
      return;
    }
    this.keyCache.clear();
    this.pairs.clear();
  }
}

/** Tells every Authenticator (all processes on PostgreSQL) to forget an account's cached credentials. */
export async function accountCredentialsChanged(store: Store, accountId: number): Promise<void> {
  await store.signals.notify(AUTH_CHANNEL, `account:${accountId}`);
}

export async function apiKeyRevoked(store: Store, keyHash: string): Promise<void> {
  await store.signals.notify(AUTH_CHANNEL, `key:${keyHash}`);
}
