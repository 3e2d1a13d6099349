// Opens the database (SQLite or PostgreSQL) behind one Kysely interface, runs migrations,
// and offers write transactions and cross-process wake-up signals. What a Store is: contract.ts;
// each engine's: sqlite-store.ts, postgres-store.ts.
import type { DatabaseTarget, Store, StoreOptions } from "./contract.js";
import { openPostgres } from "./postgres-store.js";
import { openSqlite } from "./sqlite-store.js";

export type { DatabaseTarget, Signals, Statement, Store, StoreOptions } from "./contract.js";
export { storeOptions } from "./contract.js";
export type { Db } from "./schema.js";

export async function openStore(target: DatabaseTarget, options: StoreOptions = {}): Promise<Store> {
  return target.engine === "sqlite" ? openSqlite(target.file, options) : openPostgres(target.url, options);
}
