// Turns credentials (an API key, or username+password) into the calling account.
// Lookups are cached in memory; revoking a key, changing a password or an account's state
// signals every process (NOTIFY on PostgreSQL) to drop what it remembers at once.
import type { Logger } from "pino";
import type { Counter } from "prom-client";
import { BoundedMap } from "../../base/core/bounded-map.js";
import type { Clock } from "../../base/core/clock.js";
import { EpisodeLog } from "../../base/core/episodes.js";
import { GatewayError } from "../../base/core/errors.js";
import { USERNAME_MAX_LENGTH, usernameIs, usernameKey } from "../../base/core/usernames.js";
import type { Store } from "../../base/store/store.js";
import type { AccountCredentialRows, AccountCredentials } from "./account-rows.js";
import { hashApiKey } from "./api-keys.js";
import { authChanged, listenForAuthChanges } from "./auth-changes.js";
import { keyPrincipal } from "./key-principals.js";
import { allowListMatcher } from "./key-scopes.js";
import { type CheckOutcome, PasswordChecks } from "./login-checks.js";
import {
  accountBudget,
  forgetAddressFailures,
  isAddressLocked,
  type LoginLockPolicy,
  reportLoginLock,
  reserveLoginAttempt,
  settleFailedLogin,
  settlePassedFirstStep,
  settleVerifiedLogin,
} from "./login-locks.js";
import { dummyPasswordHash, passwordMatches, VerifiedPairCache } from "./passwords.js";
import { type Principal, principalOfAccount, type SignInIdentity } from "./principal.js";
import { hasTwoFactor } from "./two-factor.js";
import { ownerRoleOf, type UserRole } from "./user-roles.js";
import { findUser } from "./users.js";

export type { Principal, SignInIdentity };

export interface AuthSettings extends LoginLockPolicy {
  passwordCacheSeconds: number;
}

/** Checks a password against a stored argon2 hash (injected by tests that count the checks). */
export type PasswordVerifier = (passwordHash: string, password: string) => Promise<boolean>;

const WRONG_CREDENTIALS = "Authentication failed: wrong username or password.";
const WRONG_CODE = "Authentication failed: wrong or already used code.";
const LOCKED = "User account locked after repeated failed logins; try again later.";
const KEY_CACHE_MS = 30_000;
const KEY_CACHE_MAX = 50_000;
/**
 * How long an account's login row (hashes, state, lock times) is reused by password logins.
 * Every change that matters signals (`account:<id>`, `row:<id>`), so this only bounds how long
 * a change made without a signal (none is known) could go unseen.
 */
const LOGIN_ROW_MS = 2_000;
const LOGIN_ROW_MAX = 50_000;
type KnownKey = { principal: Principal; expires: number; hash: string };
type KnownLogin = { row: AccountCredentials | undefined; expires: number };

/** Whether a second step (a two-factor code) follows a password that passed: the address's count then stays. */
type SecondStep = (account: AccountCredentials) => Promise<boolean>;

export class Authenticator {
  /**
   * Resolved keys by the key as sent, with its hash (what revocations name): the SHA-256 of a
   * key was 3 % of the HTTP thread's CPU under send load, paid on every request of a known key.
   */
  private readonly keyCache = new BoundedMap<string, KnownKey>(KEY_CACHE_MAX);
  /** Login rows by username key: a legacy client sends its password with every request. */
  private readonly loginRows = new BoundedMap<string, KnownLogin>(LOGIN_ROW_MAX);
  private readonly pairs: VerifiedPairCache;
  private readonly checks = new PasswordChecks();
  private readonly checksCounter: Pick<Counter<"outcome">, "inc"> | undefined;
  /** The addresses whose count a remembered login reset since this login row was read. */
  private readonly addressesCleared = new WeakMap<AccountCredentials, Set<string>>();
  private readonly stopListening: () => void;
  private readonly verify: PasswordVerifier;
  private readonly locks: EpisodeLog | undefined;

  constructor(
    private readonly store: Store,
    /** The accounts' rows, from accounts/ (handed in by app/). */
    private readonly accounts: AccountCredentialRows,
    private readonly clock: Clock,
    private readonly settings: AuthSettings,
    options: {
      /** The password check (tests count its calls). */
      verify?: PasswordVerifier;
      /** Where a login lock is reported: an operator wants to know who is being guessed at. */
      logger?: Pick<Logger, "warn" | "info">;
      /** Counts the password checks by outcome (runtime/ metrics' passwordChecks). */
      checksCounter?: Pick<Counter<"outcome">, "inc">;
    } = {},
  ) {
    this.verify = options.verify ?? passwordMatches;
    this.checksCounter = options.checksCounter;
    // Failures checked in parallel past the threshold each set the lock again: one warning.
    this.locks = options.logger
      ? new EpisodeLog(options.logger, { quietMs: settings.loginLockMinutes * 60_000 })
      : undefined;
    this.pairs = new VerifiedPairCache(settings.passwordCacheSeconds * 1000);
    this.stopListening = listenForAuthChanges(store, this);
  }

  close(): void {
    this.stopListening();
  }

  /** Resolves an API key; throws `unauthorized` for unknown or revoked keys. */
  async byApiKey(key: string): Promise<Principal> {
    const now = Date.now();
    const cached = this.keyCache.get(key);
    if (cached && cached.expires > now) return cached.principal;
    const keyHash = hashApiKey(key);

    const principal = await keyPrincipal(this.store.db, this.accounts, keyHash);
    if (!principal) throw new GatewayError("unauthorized");
    this.keyCache.set(key, { principal, expires: now + KEY_CACHE_MS, hash: keyHash });
    return principal;
  }

  /**
   * Checks a username+password from a source address. Repeated failures from one address lock
   * that address out of the account (`account_locked`, -16), failures from many addresses the
   * whole account (auth/login-locks.ts); a locked login is refused even with the right password.
   * An unknown username costs an argon2 check like a wrong password, so the answer's time does
   * not tell whether the username exists.
   */
  async byPassword(username: string, password: string, address: string, next?: SecondStep): Promise<Principal> {
    return this.login(username, password, address, (account) => account.password_hash, username, next, true);
  }

  /**
   * An SMPP bind's system_id and password (smpp-server/): the account's SMPP password, whose
   * hash `smppHashOf` reads (smpp-server/ keeps SMPP passwords; it is asked once the login is
   * known not to be locked), checked like a password login and counted in the same login locks.
   * An account without an SMPP password (null) fails like a wrong password.
   */
  async bySmppPassword(
    systemId: string,
    password: string,
    address: string,
    smppHashOf: (accountId: number) => Promise<string | null>,
  ): Promise<Principal> {
    return this.login(systemId, password, address, (account) => smppHashOf(account.account_id));
  }

  /**
   * A console sign-in (decision 0126): the account's username, and one of its users' login, or
   * none (or the username itself) for the owner login. A user's failures are counted and locked
   * per (account, login, address): guessing one user's password locks neither the owner nor the
   * other users out, and an invited user who has set no password fails like a wrong one. The
   * identity is what a second step (two-factor) takes on from; a login with a factor goes on to a
   * code, and only the code starts the address's count again (decision 0167).
   */
  async verifySignIn(
    username: string,
    login: string | undefined,
    password: string,
    address: string,
  ): Promise<SignInIdentity> {
    const asOwner = login === undefined || usernameKey(login.trim()) === usernameKey(username.trim());
    const secondStep: SecondStep = (a) =>
      hasTwoFactor(this.store.db, { accountId: a.account_id, login: asOwner ? a.username : login.trim() });
    if (asOwner) {
      const principal = await this.byPassword(username, password, address, secondStep);
      const userRole = ownerRoleOf(principal.role);
      return { principal, accountId: principal.accountId, login: principal.username, userRole };
    }
    let user: Awaited<ReturnType<typeof findUser>>;
    const principal = await this.login(
      username,
      password,
      `${usernameKey(login.trim())} ${address}`,
      async (account) => {
        user = await findUser(this.store.db, account.account_id, login);
        return user?.password_hash ?? null;
      },
      `${username}\n${login}`,
      secondStep,
    );
    // The check passed: the closure above found the user and their password.
    const found = user as unknown as NonNullable<typeof user>;
    const userRole = found.user_role as UserRole;
    return {
      principal: { ...principal, login: found.login, userRole, userId: found.id },
      accountId: principal.accountId,
      login: found.login,
      userRole,
    };
  }

  /** The account as a principal (a sign-in's second step completes it), or undefined when it is gone. */
  async principalOf(accountId: number): Promise<Principal | undefined> {
    const account = await this.accountRow(accountId);
    return account ? principalOfAccount(account) : undefined;
  }

  /**
   * A second factor's code (two-factor.ts) for an account whose password just passed, checked in
   * the same login locks as a password: a locked login is refused before `matches` runs, and a
   * wrong code counts as a wrong password from `address` (`unauthorized` then). Answers the account.
   */
  async bySecondFactor(
    accountId: number,
    address: string,
    matches: (principal: Principal) => Promise<boolean>,
  ): Promise<Principal> {
    const account = await this.accountRow(accountId);
    if (!account) throw new GatewayError("unauthorized", "The account is gone.");
    const principal = principalOfAccount(account);
    const now = this.clock.now().getTime();
    await this.refuseLocked(account, address, now);
    const outcome = await this.check(account, address, now, () => matches(principal));
    if (outcome === "locked") throw new GatewayError("account_locked", LOCKED);
    if (outcome === "wrong") throw new GatewayError("unauthorized", WRONG_CODE);
    return principal;
  }

  private async accountRow(accountId: number): Promise<AccountCredentials | undefined> {
    const db = this.store.db;
    return db
      .selectFrom(this.accounts(db).as("a"))
      .selectAll()
      .where("a.account_id", "=", accountId)
      .executeTakeFirst();
  }

  /** Throws `account_locked` when the account, or `address` on it, is locked out now. */
  private async refuseLocked(account: AccountCredentials, address: string, now: number): Promise<void> {
    const addressMayBeLocked = account.address_locks_until !== null && account.address_locks_until > now;
    if (
      (account.locked_until !== null && account.locked_until > now) ||
      (addressMayBeLocked && (await isAddressLocked(this.store.db, account.account_id, address, now)))
    ) {
      this.checksCounter?.inc({ outcome: "refused" });
      throw new GatewayError("account_locked", LOCKED);
    }
  }

  private async login(
    username: string,
    password: string,
    /** What failures are counted and locked under: the source address, or `<login> <address>` for a user. */
    address: string,
    storedHashOf: (account: AccountCredentials) => string | null | Promise<string | null>,
    /** Whose password a remembered pair stands for (the username, or the username and a user's login). */
    pairKey = username,
    secondStep?: SecondStep,
    /** The account's password_allowed_ips apply (the families' password logins; an SMPP bind has its own list). */
    passwordLogin = false,
  ): Promise<Principal> {
    const account = await this.loginRow(username);
    if (!account) {
      await this.verify(await dummyPasswordHash(), password);
      this.checksCounter?.inc({ outcome: "wrong" });
      throw new GatewayError("unauthorized", WRONG_CREDENTIALS);
    }

    const now = this.clock.now().getTime();
    await this.refuseLocked(account, address, now);
    const storedHash = await storedHashOf(account);
    const principal = principalOfAccount(account);
    const allowedFrom = passwordLogin ? allowListMatcher(account.password_allowed_ips) : undefined;
    if (allowedFrom) {
      principal.allowedFrom = allowedFrom;
      principal.allowedBy = "password";
    }
    const hash = storedHash ?? (await dummyPasswordHash());
    const remembered =
      storedHash !== null && this.pairs.lookup(pairKey, password, hash, Date.now()) === account.account_id;
    const keepsCount = secondStep ? await secondStep(account) : false;
    if (remembered) {
      // Failures count only in a row: a success, remembered or checked, starts the address's count
      // again. Once per address for each read of the login row (a failure anywhere makes every
      // process read it again), not on every request.
      let cleared = this.addressesCleared.get(account);
      if (!keepsCount && account.failed_logins > 0 && !cleared?.has(address)) {
        await forgetAddressFailures(this.store.db, account.account_id, address, now);
        if (!cleared) {
          cleared = new Set();
          this.addressesCleared.set(account, cleared);
        }
        cleared.add(address);
      }
      return principal;
    }
    const matches = () => this.verify(hash, password).then((ok) => ok && storedHash !== null);
    const shared = await this.checks.once(`${this.pairs.keyOf(pairKey, password, hash)} ${address}`, () =>
      this.check(account, address, now, matches, keepsCount),
    );
    // An attempt that took another's wrong outcome is a failure of its own all the same (counted,
    // and refused once the budget is spent), only without running argon2 again.
    const outcome =
      shared.joined && shared.outcome === "wrong"
        ? await this.check(account, address, now, async () => false)
        : shared.outcome;
    this.checksCounter?.inc({ outcome: outcome === "locked" ? "refused" : outcome });
    if (outcome === "locked") throw new GatewayError("account_locked", LOCKED);
    if (outcome === "wrong") throw new GatewayError("unauthorized", WRONG_CREDENTIALS);
    this.pairs.remember(pairKey, password, hash, account.account_id, Date.now());
    return principal;
  }

  /**
   * One password check of the account from `address`, reserved before it runs in this process
   * (PasswordChecks) and in the store (login-locks.ts), so that concurrent guesses cannot pass the
   * lock: a check past the budget is not run and answers `locked`.
   */
  private async check(
    account: AccountCredentials,
    address: string,
    now: number,
    matches: () => Promise<boolean>,
    keepsCount = false,
  ): Promise<CheckOutcome> {
    const release = this.checks.take(
      account.account_id,
      address,
      this.settings.loginLockThreshold,
      accountBudget(this.settings),
    );
    if (!release) return "locked";
    try {
      const db = this.store.db;
      const reservation = await reserveLoginAttempt(this.store, this.settings, account.account_id, address, now);
      if (!reservation.granted) return "locked";
      if (await matches()) {
        if (keepsCount) await settlePassedFirstStep(db, account.account_id, address, now);
        else await settleVerifiedLogin(db, account.account_id, address, now);
        if (account.failed_logins > 0) await authChanged(this.store, `row:${account.account_id}`);
        return "verified";
      }
      const locked = await settleFailedLogin(db, this.settings, reservation, account.account_id, address, now);
      // Every process reads the row again: its count, and any lock just set.
      await authChanged(this.store, `row:${account.account_id}`);
      if (locked) reportLoginLock(this.locks, this.settings, { username: account.username, address, scope: locked });
      return "wrong";
    } finally {
      release();
    }
  }

  /** The account's login row, read at most every LOGIN_ROW_MS while no change is signalled. */
  private async loginRow(username: string): Promise<AccountCredentials | undefined> {
    // No account has a longer name: answered without a query, and not remembered (the guesses
    // of unknown names are remembered, and a client could make each one as long as it likes).
    if (username.length > USERNAME_MAX_LENGTH) return undefined;
    const key = usernameKey(username);
    const now = Date.now();
    const hit = this.loginRows.get(key);
    if (hit && hit.expires > now) return hit.row;
    const db = this.store.db;
    const row = await db
      .selectFrom(this.accounts(db).as("a"))
      .selectAll()
      .where(usernameIs(username))
      .executeTakeFirst();
    // An unknown username is remembered too: guessing names must not cost a query each.
    this.loginRows.set(key, { row, expires: now + LOGIN_ROW_MS });
    return row;
  }

  private forgetLoginRows(accountIds: ReadonlySet<number>): void {
    for (const [key, entry] of this.loginRows) {
      if (entry.row && accountIds.has(entry.row.account_id)) this.loginRows.delete(key);
    }
  }

  /**
   * Drops cached credentials: `key:<hash>`, `account:<id>` (the account's keys, verified
   * passwords and login row), `accounts:<id>,<id>…` (their keys and login rows: a parent's status
   * changed), `row:<id>` (its login row: counts or locks changed), anything else drops everything.
   */
  forget(payload: string): void {
    const [kind, value] = payload.split(":", 2);
    if (kind === "key" && value) {
      for (const [key, entry] of this.keyCache) {
        if (entry.hash === value) this.keyCache.delete(key);
      }
      return;
    }
    if (kind === "row" && value) {
      this.forgetLoginRows(new Set([Number(value)]));
      return;
    }
    if ((kind === "account" || kind === "accounts") && value) {
      const ids = new Set(value.split(",").map(Number));
      this.forgetLoginRows(ids);
      // A parent's status changed (`accounts:`): the passwords are the same, only the rows differ.
      if (kind === "account") for (const accountId of ids) this.pairs.forgetAccount(accountId);
      for (const [key, entry] of this.keyCache) {
        if (ids.has(entry.principal.accountId)) this.keyCache.delete(key);
      }
      return;
    }
    this.keyCache.clear();
    this.pairs.clear();
    this.loginRows.clear();
  }
}
