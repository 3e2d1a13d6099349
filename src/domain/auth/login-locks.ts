// Login locks. Failed password logins are counted per (account, source address): at
// LOGIN_LOCK_THRESHOLD failures in a row from one address, that address is locked out of that
// account for LOGIN_LOCK_MINUTES, and everyone else still logs in. Only when
// LOGIN_LOCK_ADDRESSES addresses are locked out of one account at the same time, or the account
// took LOGIN_LOCK_THRESHOLD × LOGIN_LOCK_ADDRESSES failures in a lock period (a guess spread over
// many machines), is the whole account locked. Each check is reserved in the store before it
// runs, so no number of concurrent guesses gets past those bounds. Operators see and clear both kinds
// (operator API /admin/api/login-locks, `switchboard login-locks`). The account-level state
// (failed_logins, locked_until, address_locks_until) is auth's, kept on the account's row so that
// a login reads one row; after the account is created only this file writes it.
import { sql } from "kysely";
import type { EpisodeLog } from "../../base/core/episodes.js";
import { GatewayError } from "../../base/core/errors.js";
import { usernameIs } from "../../base/core/usernames.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";

export interface LoginLockPolicy {
  /** Failures in a row from one address that lock it out of the account; 0 never locks. */
  loginLockThreshold: number;
  loginLockMinutes: number;
  /** Addresses locked out of one account at once that lock the whole account; 0 never does. */
  loginLockAddresses: number;
}

export interface LoginLock {
  username: string;
  /** `account`: nobody can log in with a password; `address`: only this address cannot. */
  scope: "account" | "address";
  address: string | null;
  locked_until: string;
}

/** Whether `address` is locked out of the account now. */
export async function isAddressLocked(db: Db, accountId: number, address: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom("login_failures")
    .select("locked_until")
    .where("account_id", "=", accountId)
    .where("address", "=", address)
    .executeTakeFirst();
  return row?.locked_until != null && row.locked_until > now;
}

/** What a reservation found: a check may run, or the login is locked (in force, or its budget spent). */
export type LoginReservation =
  | {
      granted: true;
      /** The address's checks counted in the lock period, this one included (0: no bound). */
      addressCount: number;
      /** The account's, likewise. */
      accountCount: number;
    }
  | { granted: false };

/** The guesses one account takes in a lock period from all its addresses together; 0: no bound. */
export function accountBudget(policy: LoginLockPolicy): number {
  return policy.loginLockThreshold * policy.loginLockAddresses;
}

class LoginRefused extends Error {}

/**
 * Reserves one password check from `address` before it runs, in the store, so that concurrent
 * guesses (in this process or any other) cannot all pass a lock that only the last failure
 * would set: in one lock period at most LOGIN_LOCK_THRESHOLD checks per (account, address) and
 * LOGIN_LOCK_THRESHOLD × LOGIN_LOCK_ADDRESSES per account run. A check that fails keeps its
 * reservation (settleFailedLogin); one that succeeds gives it back (settleVerifiedLogin). A count
 * whose last reservation is older than the lock period starts again; a refused reservation
 * changes nothing (neither its count nor its time), so a check that never settled (its process
 * died) holds the budget for one lock period at most.
 */
export async function reserveLoginAttempt(
  store: Store,
  policy: LoginLockPolicy,
  accountId: number,
  address: string,
  now: number,
): Promise<LoginReservation> {
  const threshold = policy.loginLockThreshold;
  const budget = accountBudget(policy);
  const stale = now - policy.loginLockMinutes * 60_000;
  try {
    return await store.transaction(async (trx) => {
      let addressCount = 0;
      if (threshold > 0) {
        const row = await trx
          .insertInto("login_failures")
          .values({ account_id: accountId, address, failures: 1, locked_until: null, updated_at: now })
          .onConflict((oc) =>
            oc.columns(["account_id", "address"]).doUpdateSet({
              failures: sql<number>`case
                when login_failures.locked_until > ${now} then login_failures.failures
                when login_failures.updated_at < ${stale} then 1
                when login_failures.failures >= ${threshold} then ${threshold + 1}
                else login_failures.failures + 1 end`,
              updated_at: sql<number>`case
                when login_failures.locked_until > ${now} then login_failures.updated_at
                when login_failures.updated_at < ${stale} then ${now}
                when login_failures.failures >= ${threshold} then login_failures.updated_at
                else ${now} end`,
            }),
          )
          .returning(["failures", "locked_until"])
          .executeTakeFirstOrThrow();
        if ((row.locked_until !== null && row.locked_until > now) || row.failures > threshold) throw new LoginRefused();
        addressCount = row.failures;
      }
      let accountCount = 0;
      if (budget > 0) {
        const expired = sql<boolean>`(failed_logins_at is null or failed_logins_at < ${stale})`;
        const row = await trx
          .updateTable("accounts")
          .set({
            failed_logins: sql<number>`case
              when locked_until > ${now} then failed_logins
              when ${expired} then 1
              when failed_logins >= ${budget} then ${budget + 1}
              else failed_logins + 1 end`,
            failed_logins_at: sql<number>`case
              when locked_until > ${now} then failed_logins_at
              when ${expired} then ${now}
              when failed_logins >= ${budget} then failed_logins_at
              else ${now} end`,
          })
          .where("id", "=", accountId)
          .returning(["failed_logins", "locked_until"])
          .executeTakeFirstOrThrow();
        if ((row.locked_until !== null && row.locked_until > now) || row.failed_logins > budget)
          throw new LoginRefused();
        accountCount = row.failed_logins;
      }
      return { granted: true as const, addressCount, accountCount };
    });
  } catch (error) {
    // Thrown inside the transaction so that a refusal by the account's budget also gives back
    // the address's reservation taken before it.
    if (error instanceof LoginRefused) return { granted: false };
    throw error;
  }
}

/**
 * A reserved check failed: it stays counted. The check that spent an address's budget locks the
 * address out of the account; the one that spent the account's budget, or made
 * LOGIN_LOCK_ADDRESSES addresses locked at once, locks the whole account. Answers the lock this
 * failure set, if any.
 */
export async function settleFailedLogin(
  db: Db,
  policy: LoginLockPolicy,
  reservation: { addressCount: number; accountCount: number },
  accountId: number,
  address: string,
  now: number,
): Promise<"address" | "account" | undefined> {
  const until = now + policy.loginLockMinutes * 60_000;
  const budget = accountBudget(policy);
  const budgetSpent = budget > 0 && reservation.accountCount >= budget;
  const addressLocks = policy.loginLockThreshold > 0 && reservation.addressCount >= policy.loginLockThreshold;
  if (addressLocks) {
    await db
      .updateTable("login_failures")
      .set({ failures: 0, locked_until: until, updated_at: now })
      .where("account_id", "=", accountId)
      .where("address", "=", address)
      .execute();
    await db.updateTable("accounts").set({ address_locks_until: until }).where("id", "=", accountId).execute();
    // Rows of addresses that stopped failing long ago are of no use: dropped when a lock is set.
    await db
      .deleteFrom("login_failures")
      .where("account_id", "=", accountId)
      .where("updated_at", "<", now - 24 * 60 * 60_000)
      .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", now)]))
      .execute();
  }
  if (budgetSpent || (addressLocks && (await addressesLocked(db, policy, accountId, now)))) {
    await lockAccount(db, accountId, until, now);
    return "account";
  }
  return addressLocks ? "address" : undefined;
}

/** Tells the operator, once per episode, who is being guessed at: a lock just set. */
export function reportLoginLock(
  episodes: Pick<EpisodeLog, "occurred"> | undefined,
  policy: LoginLockPolicy,
  lock: { username: string; address: string; scope: "address" | "account" },
): void {
  const { username, address, scope } = lock;
  const { loginLockThreshold, loginLockMinutes, loginLockAddresses } = policy;
  const fields = { account: username, ip: address, scope, locked_minutes: loginLockMinutes };
  const message =
    scope === "address"
      ? `login to account ${username} from ${address} locked for ${loginLockMinutes} minutes after ${loginLockThreshold} failed logins in a row (clear: login-locks)`
      : `account ${username} locked for ${loginLockMinutes} minutes: ${loginLockAddresses} addresses failed to log in to it (clear: login-locks)`;
  episodes?.occurred(`${scope} ${username} ${scope === "address" ? address : ""}`, message, fields);
}

/** Whether LOGIN_LOCK_ADDRESSES addresses are locked out of the account at once. */
async function addressesLocked(db: Db, policy: LoginLockPolicy, accountId: number, now: number): Promise<boolean> {
  if (policy.loginLockAddresses === 0) return false;
  const locked = await db
    .selectFrom("login_failures")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .where("locked_until", ">", now)
    .executeTakeFirstOrThrow();
  return Number(locked.n) >= policy.loginLockAddresses;
}

async function lockAccount(db: Db, accountId: number, until: number, now: number): Promise<void> {
  await db
    .updateTable("accounts")
    .set({ failed_logins: 0, failed_logins_at: now, locked_until: until })
    .where("id", "=", accountId)
    .execute();
}

/** A reserved check succeeded: the account's reservation is given back and the address's count starts again. */
export async function settleVerifiedLogin(db: Db, accountId: number, address: string, now: number): Promise<void> {
  await db
    .updateTable("accounts")
    .set({ failed_logins: sql<number>`case when failed_logins > 0 then failed_logins - 1 else 0 end` })
    .where("id", "=", accountId)
    .execute();
  await forgetAddressFailures(db, accountId, address, now);
}

/**
 * A reserved check passed, but the sign-in goes on to a second step (a two-factor code): both
 * reservations are given back and the address's count stays as it was. Wrong codes are counted
 * under the same address as wrong passwords; the password that each new challenge needs must not
 * wipe them, or a guesser with the password never reaches the address's lock (decision 0167).
 */
export async function settlePassedFirstStep(db: Db, accountId: number, address: string, now: number): Promise<void> {
  await db
    .updateTable("accounts")
    .set({ failed_logins: sql<number>`case when failed_logins > 0 then failed_logins - 1 else 0 end` })
    .where("id", "=", accountId)
    .execute();
  await db
    .updateTable("login_failures")
    .set({ failures: sql<number>`case when failures > 0 then failures - 1 else 0 end` })
    .where("account_id", "=", accountId)
    .where("address", "=", address)
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<=", now)]))
    .execute();
}

/**
 * A success from `address` (a remembered password too): its failures count only in a row, so
 * its count starts again; a lock in force stays.
 */
export async function forgetAddressFailures(db: Db, accountId: number, address: string, now: number): Promise<void> {
  await db
    .deleteFrom("login_failures")
    .where("account_id", "=", accountId)
    .where("address", "=", address)
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<=", now)]))
    .execute();
}

/** The account's login state with no failure counted and no lock in force. */
const UNLOCKED = { failed_logins: 0, failed_logins_at: null, locked_until: null, address_locks_until: null } as const;

/**
 * Deletes the rows that no longer count (housekeeping): a count older than the lock period
 * starts again anyway, so a row last updated before then whose lock, if any, has ended is
 * dead weight (one failed login each from a thousand addresses leaves a thousand rows).
 * Answers how many went.
 */
export async function pruneLoginFailures(db: Db, policy: Pick<LoginLockPolicy, "loginLockMinutes">, now: number) {
  const result = await db
    .deleteFrom("login_failures")
    .where("updated_at", "<", now - policy.loginLockMinutes * 60_000)
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<=", now)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Every lock in force, accounts first, then addresses by account. */
export async function listLoginLocks(db: Db, now: number): Promise<LoginLock[]> {
  const [accounts, addresses] = await Promise.all([
    db
      .selectFrom("accounts")
      .select(["username", "locked_until"])
      .where("locked_until", ">", now)
      .orderBy("username")
      .execute(),
    db
      .selectFrom("login_failures")
      .innerJoin("accounts", "accounts.id", "login_failures.account_id")
      .select(["accounts.username", "login_failures.address", "login_failures.locked_until"])
      .where("login_failures.locked_until", ">", now)
      .orderBy("accounts.username")
      .orderBy("login_failures.address")
      .execute(),
  ]);
  const iso = (ms: number | null) => new Date(Number(ms)).toISOString();
  return [
    ...accounts.map((a) => ({
      username: a.username,
      scope: "account" as const,
      address: null,
      locked_until: iso(a.locked_until),
    })),
    ...addresses.map((a) => ({
      username: a.username,
      scope: "address" as const,
      address: a.address,
      locked_until: iso(a.locked_until),
    })),
  ];
}

/** A lock as the audit log names it: the login it kept out (a team user's, else the account's), from where, until when. */
export interface LiftedLock {
  login: string;
  scope: "account" | "address";
  address: string | null;
  locked_until: string;
}

/** An address lock's row: a team user's is kept as `<login> <address>` (authenticator.ts), the owner's as the address. */
function addressLock(username: string, key: string, lockedUntil: number): LiftedLock {
  const space = key.indexOf(" ");
  return {
    login: space < 0 ? username : key.slice(0, space),
    scope: "address",
    address: space < 0 ? key : key.slice(space + 1),
    locked_until: new Date(lockedUntil).toISOString(),
  };
}

/**
 * Clears the locks of an account: one address's, or (without `address`) all of them with the
 * account's own lock and counts. Answers how many locks were in force. Audited as
 * `login_locks.clear` with the locks lifted in `before`; a clear that lifts no lock (only
 * counts of failures below a lock, if any) writes no entry.
 */
export async function deleteLoginLocks(
  store: Store,
  who: Audited,
  username: string,
  address?: string,
): Promise<{ cleared: number; accountId: number }> {
  const now = who.clock.now().getTime();
  return store.transaction(async (trx) => {
    const account = await trx
      .selectFrom("accounts")
      .select(["id", "username", "locked_until"])
      .where(usernameIs(username))
      .executeTakeFirst();
    if (!account) throw new GatewayError("not_found", `No account ${username}.`);
    let query = trx.deleteFrom("login_failures").where("account_id", "=", account.id);
    if (address !== undefined) query = query.where("address", "=", address);
    const removed = await query.returning(["address", "locked_until"]).execute();
    const locks = removed
      .filter((row) => row.locked_until !== null && Number(row.locked_until) > now)
      .map((row) => addressLock(account.username, row.address, Number(row.locked_until)))
      .sort((a, b) => `${a.login} ${a.address}`.localeCompare(`${b.login} ${b.address}`));
    if (address === undefined) {
      if (account.locked_until !== null && Number(account.locked_until) > now) {
        const until = new Date(Number(account.locked_until)).toISOString();
        locks.unshift({ login: account.username, scope: "account", address: null, locked_until: until });
      }
      await trx.updateTable("accounts").set(UNLOCKED).where("id", "=", account.id).execute();
    }
    if (locks.length > 0) {
      await recordChange(trx, who, {
        action: "login_locks.clear",
        target:
          address === undefined
            ? `login locks of ${account.username}`
            : `login lock of ${account.username} from ${address}`,
        accountId: account.id,
        before: { locks },
        after: { cleared: locks.length },
      });
    }
    return { cleared: locks.length, accountId: account.id };
  });
}
