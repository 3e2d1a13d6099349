// How a change of credentials reaches every process's caches (authenticator.ts): the
// authenticators of this process are told before the call that made the change returns; other
// processes hear it by PostgreSQL's NOTIFY, or on SQLite by polling the `auth_epoch` setting.

import { moveVersion, readVersion } from "../../base/store/setting-versions.js";
import type { Store } from "../../base/store/store.js";
import type { Audited } from "../audit/index.js";
import { deleteLoginLocks } from "./login-locks.js";

/** What a change reaches: an authenticator's caches (Authenticator.forget's payloads). */
export interface AuthCaches {
  forget(payload: string): void;
}

const AUTH_CHANNEL = "auth_changed";
const AUTH_EPOCH_KEY = "auth_epoch";

/** How often a SQLite gateway looks for writes by other processes (the CLI), which send it no signal. */
const SQLITE_EXTERNAL_WRITES_POLL_MS = 200;

/**
 * The caches of this process, by store. A change made here is forgotten here before the call
 * that made it returns; PostgreSQL's NOTIFY reaches this process a moment later.
 */
const localCaches = new WeakMap<Store, Set<AuthCaches>>();

/** The timer of watchExternalWrites, one per SQLite store whatever the number of its caches. */
const epochWatches = new WeakMap<Store, NodeJS.Timeout>();

/** Makes `caches` hear every change of credentials on `store`; answers how to stop. */
export function listenForAuthChanges(store: Store, caches: AuthCaches): () => void {
  const unsubscribe = store.signals.listen(AUTH_CHANNEL, (payload) => caches.forget(payload));
  let local = localCaches.get(store);
  if (!local) {
    local = new Set();
    localCaches.set(store, local);
  }
  local.add(caches);
  if (store.engine === "sqlite" && !epochWatches.has(store)) epochWatches.set(store, watchExternalWrites(store));
  return () => {
    unsubscribe();
    const left = localCaches.get(store);
    left?.delete(caches);
    if (left?.size === 0) {
      clearInterval(epochWatches.get(store));
      epochWatches.delete(store);
    }
  };
}

/**
 * Another process on the same SQLite file (e.g. `switchboard keys revoke` next to a running
 * gateway) cannot signal this one: every credentials change bumps the `auth_epoch` setting
 * (authChanged), and a change of it drops everything cached. Not SQLite's data_version: the
 * worker thread of the same process commits all the time, and each of its commits would
 * throw the caches away (a password check per legacy request). One read per poll for all the
 * caches of the store (a thread's authenticator and held accounts), not one each.
 */
function watchExternalWrites(store: Store): NodeJS.Timeout {
  let seen: string | undefined;
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    authEpoch(store)
      .then((epoch) => {
        if (seen !== undefined && epoch !== seen) for (const caches of localCaches.get(store) ?? []) caches.forget("");
        seen = epoch;
      })
      .catch(() => {
        // The store is closing; the next tick (if any) tries again.
      })
      .finally(() => {
        checking = false;
      });
  }, SQLITE_EXTERNAL_WRITES_POLL_MS);
  timer.unref();
  return timer;
}

function authEpoch(store: Store): Promise<string> {
  return readVersion(store, AUTH_EPOCH_KEY);
}

/** Tells every process's caches of `store` to forget what `payload` names (Authenticator.forget). */
export async function authChanged(store: Store, payload: string): Promise<void> {
  for (const caches of localCaches.get(store) ?? []) caches.forget(payload);
  // A login row's counts and locks matter only to the processes serving logins, which the
  // signal reaches (the threads of a SQLite `start` too). The epoch would make every other
  // process drop every verified password: an argon2 check per client after each wrong guess.
  if (store.engine === "sqlite" && !payload.startsWith("row:")) {
    // Other processes on the file poll it (watchExternalWrites); PostgreSQL's NOTIFY reaches them.
    await moveVersion(store.db, AUTH_EPOCH_KEY);
  }
  await store.signals.notify(AUTH_CHANNEL, payload);
}

/** Tells every Authenticator (all processes on PostgreSQL) to forget an account's cached credentials. */
export async function accountCredentialsChanged(store: Store, accountId: number): Promise<void> {
  await authChanged(store, `account:${accountId}`);
}

/** Ids in one signal: PostgreSQL's NOTIFY takes under 8,000 bytes of payload. */
const IDS_PER_SIGNAL = 500;

/**
 * The same for many accounts at once (`accounts:<id>,<id>…`, a few signals for a big tree): the
 * sub-accounts of an account whose status changed, which act with it (decision 0148).
 */
export async function accountsCredentialsChanged(store: Store, accountIds: readonly number[]): Promise<void> {
  for (let start = 0; start < accountIds.length; start += IDS_PER_SIGNAL) {
    await authChanged(store, `accounts:${accountIds.slice(start, start + IDS_PER_SIGNAL).join(",")}`);
  }
}

/**
 * Clears the login locks of an account (login-locks.ts), and tells every process serving
 * logins to read its login row again. Answers how many locks were in force.
 */
export async function clearLoginLocks(
  store: Store,
  who: Audited,
  username: string,
  address?: string,
): Promise<{ cleared: number }> {
  const { cleared, accountId } = await deleteLoginLocks(store, who, username, address);
  await authChanged(store, `row:${accountId}`);
  return { cleared };
}

export async function apiKeyRevoked(store: Store, keyHash: string): Promise<void> {
  await authChanged(store, `key:${keyHash}`);
}
