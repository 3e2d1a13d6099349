// Versions kept in the `settings` table: a key whose value moves at every change of what it
// stands for (the carriers' catalogue, price cards, credentials, DLT state), so a process that
// hears no signal of the change (another process on a SQLite file) sees it by reading the key.
import type { Db } from "./store.js";

/** Moves the version under `key` to a value no earlier one had. */
export async function moveVersion(db: Db, key: string, now: number = Date.now()): Promise<void> {
  const value = `${now}-${Math.random().toString(36).slice(2, 10)}`;
  await db
    .insertInto("settings")
    .values({ key, value })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
    .execute();
}

/** The version under `key`; "0" before its first move. */
export async function readVersion(db: Db, key: string): Promise<string> {
  const row = await db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst();
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
    private readonly db: Db,
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
    this.checking ??= readVersion(this.db, this.key)
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
