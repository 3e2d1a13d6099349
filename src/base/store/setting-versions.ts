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
