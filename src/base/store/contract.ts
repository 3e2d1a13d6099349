// The database as the rest of the gateway sees it, whichever engine holds it: a Kysely
// interface, write transactions, prepared hot-path statements and cross-process wake-up
// signals (store.ts opens one; sqlite-store.ts and postgres-store.ts implement it).
import { type Insertable, sql } from "kysely";
import type { Engine } from "./engine.js";
import type { Database, Db } from "./schema.js";

/** Where the data lives: a SQLite file or a PostgreSQL database (DATABASE_URL). */
export type DatabaseTarget = { engine: "sqlite"; file: string } | { engine: "postgres"; url: string };

/** Wake-up signals between the parts of the gateway (and between processes on PostgreSQL). */
export interface Signals {
  notify(channel: string, payload?: string): Promise<void>;
  listen(channel: string, handler: (payload: string) => void): () => void;
}

export interface Store {
  readonly engine: Engine;
  readonly db: Db;
  readonly signals: Signals;
  /**
   * Runs `fn` in one write transaction and resolves after it is committed. SQLite takes the
   * write lock up front (BEGIN IMMEDIATE) and commits all transactions of a tick together (see
   * sqlite-group-commit.ts). Never call it from inside another transaction.
   */
  transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T>;
  /**
   * SQLite: the share named `key` of the transaction `trx` is (created by `create` at its first
   * call), which the group commit merges with the same share of the other transactions of its
   * group (each once its savepoint is released) and writes once, just before the COMMIT:
   * counters that every writer of a tick moves (the delivery rollups) are written once per
   * group instead of once per writer. Undefined where `trx` is no transaction of a group (and
   * on PostgreSQL, whose transactions are each their own): the caller writes at once.
   */
  shareUntilCommit?<T extends CommitShare>(trx: Db, key: string, create: () => T): T | undefined;
  /**
   * Inserts many rows of one shape (every row has the first row's columns) inside `trx`, the
   * fastest way each engine offers: on SQLite one prepared single-row statement run per row
   * (no SQL to build or parse per row: 100,000 messages in about 0.4 s instead of 1.5 s with
   * 500-row statements), on PostgreSQL multi-row statements.
   */
  insertMany<T extends keyof Database & string>(trx: Db, table: T, rows: Insertable<Database[T]>[]): Promise<void>;
  /**
   * A statement of the hot paths, written once in SQL both engines read (`?` placeholders, which
   * PostgreSQL gets as `$1…`), prepared once and run without a query builder: building and
   * compiling a Kysely query costs more than SQLite takes to run a simple one. Run it with the
   * transaction it belongs to, or `db` outside one.
   */
  statement(text: string): Statement;
  /**
   * Where a read of a whole table goes (an export of a million messages): on SQLite a read-only
   * connection of its own with a small page cache, so the scan neither grows the process by the
   * main connection's 8 MiB cache nor evicts the pages the sends use; on PostgreSQL `db`.
   */
  scanDb(): Db;
  migrate(): Promise<void>;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Work of a transaction that the group commit merges across its group and writes before the COMMIT. */
export interface CommitShare {
  /** Adds the same share of another transaction of the group to this one. */
  merge(other: CommitShare): void;
  /** Writes the merged share, inside the group's transaction. */
  write(trx: Db): Promise<void>;
}

export interface Statement {
  /** Rows changed. */
  run(trx: Db, params: readonly unknown[]): Promise<number>;
  all<R>(trx: Db, params: readonly unknown[]): Promise<R[]>;
}

export interface StoreOptions {
  sqliteSynchronous?: "FULL" | "NORMAL";
  /** SQLite: each connection's page cache, MiB (SQLITE_CACHE_MB; 8 when left out). */
  sqliteCacheMb?: number;
  /** PostgreSQL schema to use instead of `public` (tests give every file its own). */
  pgSchema?: string;
  pgPoolSize?: number;
  /**
   * PostgreSQL: the statements of `statement()` and `insertMany` as named prepared statements
   * (parsed once per connection, generic plans where PostgreSQL finds them cheaper). Default on;
   * off behind a pooler that cannot keep them (PgBouncer's transaction pooling before 1.21).
   */
  pgPreparedStatements?: boolean;
  /** How often each connection drops its cached plans (`DISCARD PLANS`); tests shorten it. */
  pgPlanRefreshMs?: number;
  /**
   * PostgreSQL: pg's pipeline mode, a transaction's BEGIN and insertMany's inserts sent without
   * waiting for their answers (postgres-store.ts, pipelineTransactions). Default on.
   */
  pgPipeline?: boolean;
}

/** The store options a process's configuration sets. */
export function storeOptions(config: {
  sqliteSynchronous: "FULL" | "NORMAL";
  sqliteCacheMb: number;
  pgPreparedStatements: boolean;
  pgPipeline: boolean;
}): StoreOptions {
  return {
    sqliteSynchronous: config.sqliteSynchronous,
    sqliteCacheMb: config.sqliteCacheMb,
    pgPreparedStatements: config.pgPreparedStatements,
    pgPipeline: config.pgPipeline,
  };
}

/** Whether the database answers a trivial query (a Store's `ping`, for /readyz and doctor). */
export async function pingDatabase(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
