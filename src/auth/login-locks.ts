// Login locks. Failed password logins are counted per (account, source address): at
// LOGIN_LOCK_THRESHOLD failures in a row from one address, that address is locked out of that
// account for LOGIN_LOCK_MINUTES, and everyone else still logs in. Only when
// LOGIN_LOCK_ADDRESSES addresses are locked out of one account at the same time (a guess
// spread over many machines) is the whole account locked. Operators see and clear both kinds
// (operator API /admin/api/login-locks, `switchboard login-locks`). The account-level state
// (failed_logins, locked_until, address_locks_until) is auth's, kept on the account's row so that
// a login reads one row; after the account is created only this file writes it.
import { sql } from "kysely";
import { GatewayError } from "../core/errors.js";
import { usernameIs } from "../core/usernames.js";
import type { Db, Store } from "../store/store.js";

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

/**
 * Counts one failure from `address`. Incremented in the database, so failures checked in
 * parallel each count. A count older than the lock period starts again: an address that
 * fails now and then over months is not a guess. Answers the lock this failure set, if any.
 */
export async function recordFailedLogin(
  db: Db,
  policy: LoginLockPolicy,
  accountId: number,
  address: string,
  now: number,
): Promise<"address" | "account" | undefined> {
  const lockMs = policy.loginLockMinutes * 60_000;
  await db
    .updateTable("accounts")
    .set((eb) => ({ failed_logins: eb("failed_logins", "+", 1) }))
    .where("id", "=", accountId)
    .execute();
  const row = await db
    .insertInto("login_failures")
    .values({ account_id: accountId, address, failures: 1, locked_until: null, updated_at: now })
    .onConflict((oc) =>
      oc.columns(["account_id", "address"]).doUpdateSet({
        failures: sql<number>`case when login_failures.updated_at < ${now - lockMs} then 1 else login_failures.failures + 1 end`,
        updated_at: now,
      }),
    )
    .returning("failures")
    .executeTakeFirstOrThrow();
  if (policy.loginLockThreshold === 0 || row.failures < policy.loginLockThreshold) return undefined;

  const until = now + lockMs;
  await db
    .updateTable("login_failures")
    .set({ failures: 0, locked_until: until })
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
  if (policy.loginLockAddresses === 0) return "address";
  const locked = await db
    .selectFrom("login_failures")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .where("locked_until", ">", now)
    .executeTakeFirstOrThrow();
  if (Number(locked.n) >= policy.loginLockAddresses) {
    await db
      .updateTable("accounts")
      .set({ failed_logins: 0, locked_until: until })
      .where("id", "=", accountId)
      .execute();
    return "account";
  }
  return "address";
}

/** A success from `address`: its count, and the account's count in a row, start again. */
export async function recordSuccessfulLogin(db: Db, accountId: number, address: string): Promise<void> {
  await db.updateTable("accounts").set({ failed_logins: 0, locked_until: null }).where("id", "=", accountId).execute();
  await db
    .deleteFrom("login_failures")
    .where("account_id", "=", accountId)
    .where("address", "=", address)
    .where("locked_until", "is", null)
    .execute();
}

/** The account's login state with no failure counted and no lock in force. */
const UNLOCKED = { failed_logins: 0, locked_until: null, address_locks_until: null } as const;

/** Lifts every lock of the account, its own and its addresses', and forgets its failed logins (accounts/' unlock). */
export async function unlockLogins(db: Db, accountId: number): Promise<void> {
  await db.deleteFrom("login_failures").where("account_id", "=", accountId).execute();
  await db.updateTable("accounts").set(UNLOCKED).where("id", "=", accountId).execute();
}

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

/**
 * Clears the locks of an account: one address's, or (without `address`) all of them with the
 * account's own lock and counts. Answers how many locks were in force.
 */
export async function deleteLoginLocks(
  store: Store,
  username: string,
  now: number,
  address?: string,
): Promise<{ cleared: number; accountId: number }> {
  return store.transaction(async (trx) => {
    const account = await trx
      .selectFrom("accounts")
      .select(["id", "locked_until"])
      .where(usernameIs(username))
      .executeTakeFirst();
    if (!account) throw new GatewayError("not_found", `No account ${username}.`);
    let query = trx.deleteFrom("login_failures").where("account_id", "=", account.id);
    if (address !== undefined) query = query.where("address", "=", address);
    const removed = await query.returning("locked_until").execute();
    let cleared = removed.filter((row) => row.locked_until !== null && row.locked_until > now).length;
    if (address === undefined) {
      if (account.locked_until !== null && account.locked_until > now) cleared += 1;
      await trx.updateTable("accounts").set(UNLOCKED).where("id", "=", account.id).execute();
    }
    return { cleared, accountId: account.id };
  });
}
