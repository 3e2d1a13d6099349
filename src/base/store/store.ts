// Opens the database (SQLite or PostgreSQL) behind one Kysely interface, runs migrations,
// and offers write transactions and cross-process wake-up signals. What a Store is: contract.ts;
// each engine's: sqlite-store.ts, postgres-store.ts.
import type { DatabaseTarget, Store, StoreOptions } from "./contract.js";
import { openSqlite } from "./sqlite-store.js";

export type { CommitShare, DatabaseTarget, Signals, Statement, Store, StoreOptions } from "./contract.js";
export { storeOptions } from "./contract.js";
export type { Db } from "./schema.js";

export async function openStore(target: DatabaseTarget, options: StoreOptions = {}): Promise<Store> {
  if (target.engine === "sqlite") return openSqlite(target.file, options);
  // Loaded for PostgreSQL only: pg and its pool take ~100 ms to load that SQLite never needs.
  const { openPostgres } = await import("./postgres-store.js");
  return openPostgres(target.url, options);
}
