// How a change of an account's DLT state (templates, entities, headers, links, callback numbers,
// chains, the switches the SMS rules read) reaches every process's caches: this process's
// threads hear the signal at once (and PostgreSQL's NOTIFY carries it to every process), but
// on SQLite another process on the same file (the CLI next to a running gateway) sends no
// signal. Every change there also moves the `dlt_version` setting, and each cache reads it
// at most every DLT_VERSION_CHECK_MS, forgetting everything when it moved (as auth_epoch does for
// credentials, auth/auth-changes.ts).

import { moveVersion, VersionWatch } from "../../base/store/setting-versions.js";
import type { Store } from "../../base/store/store.js";

const DLT_VERSION_KEY = "dlt_version";

/** At most this long after a change by another process, a SQLite gateway's caches have it. */
export const DLT_VERSION_CHECK_MS = 2_000;

/**
 * Tells every process's caches that the account's DLT state changed: `channel` (DLT_CHANGED,
 * TEMPLATES_CHANGED) with the account's id, and on SQLite the version other processes read.
 */
export async function dltChanged(store: Store, channel: string, accountId: number): Promise<void> {
  if (store.engine === "sqlite") await moveVersion(store.db, DLT_VERSION_KEY);
  await store.signals.notify(channel, String(accountId));
}

/**
 * A cache's watch on the DLT version (SQLite only: on PostgreSQL the signal reaches every
 * process, and no read is ever owed).
 */
export class DltVersionWatch extends VersionWatch {
  private readonly sqlite: boolean;

  constructor(store: Pick<Store, "db" | "statement" | "engine">, moved: () => void) {
    super(store, DLT_VERSION_KEY, DLT_VERSION_CHECK_MS, moved);
    this.sqlite = store.engine === "sqlite";
  }

  override due(now: number): boolean {
    return this.sqlite && super.due(now);
  }
}
