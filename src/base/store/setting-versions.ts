// Versions kept in the `settings` table: a key whose value moves at every change of what it
// stands for (the carriers' catalogue, price cards, credentials, DLT state), so a process that
// hears no signal of the change (another process on a SQLite file) sees it by reading the key.
import type { Db, Store } from "./store.js";

/** What a version is read through: the store's prepared statements, and its connection. */
export type VersionStore = Pick<Store, "db" | "statement">;

// A prepared statement, not a query built and compiled by Kysely at each read: the auth epoch is
// polled five times a second by each thread (issue 43).
const READ_VERSION = `select "value" from "settings" where "key" = ?`;

/** Moves the version under `key` to a value no earlier one had. */
export async function moveVersion(db: Db, key: string, now: number = Date.now()): Promise<void> {
  const value = `${now}-${Math.random().toString(36).slice(2, 10)}`;
  await db
    .insertInto("settings")
    .values({ key, value })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
    .execute();
}

/** The version under `key`; "0" before its first move. `trx`: the transaction to read it in. */
export async function readVersion(store: VersionStore, key: string, trx: Db = store.db): Promise<string> {
  const [row] = await store.statement(READ_VERSION).all<{ value: string }>(trx, [key]);
  return row?.value ?? "0";
}

/**
 * A cache's watch on the version under `key`: `due` says, without waiting, whether a read is owed
 * (every `everyMs`); `fresh` reads it when owed and calls `moved` when it changed since the last
 * read (the cache forgets what it holds); `recheck` makes the next `fresh` read it.
 */
export class VersionWatch {
  private version: string | undefined;
  private checkedAt = 0;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly store: VersionStore,
    private readonly key: string,
    private readonly everyMs: number,
    private readonly moved: () => void,
  ) {}

  due(now: number): boolean {
    return now - this.checkedAt >= this.everyMs;
  }

  recheck(): void {
    this.checkedAt = 0;
  }

  async fresh(): Promise<void> {
    if (!this.due(Date.now())) return;
    this.checking ??= readVersion(this.store, this.key)
      .then((version) => {
        if (this.version !== undefined && version !== this.version) this.moved();
        this.version = version;
        this.checkedAt = Date.now();
      })
      .finally(() => {
        this.checking = undefined;
      });
    await this.checking;
  }
}
