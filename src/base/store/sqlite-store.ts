// The SQLite store: a better-sqlite3 connection in WAL mode behind Kysely, group commits
// (sqlite-group-commit.ts), statements prepared once, and wake-up signals between the threads
// and processes on the same file.
import { EventEmitter } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { threadId } from "node:worker_threads";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { pingDatabase, type Signals, type Statement, type Store, type StoreOptions } from "./contract.js";
import { runMigrations } from "./migrations/index.js";
import type { Database } from "./schema.js";
import { groupCommitTransactions } from "./sqlite-group-commit.js";
import { cachingDatabase } from "./sqlite-statements.js";

/**
 * The page size of a new database. Each COMMIT writes every page it changed to the WAL, whole: a
 * group's message rows, the right-hand leaves (and parent) of each time-ordered index, and one
 * leaf per message of the carrier-id index, whose ids are random. Pages of 2 KiB instead of
 * SQLite's 4 KiB write about a third less WAL per message (docs/benchmarks.md, issue 43 item 3).
 */
export const PAGE_SIZE = 2048;
/** WAL checkpointed at about this size (wal_autocheckpoint counts pages). */
const WAL_CHECKPOINT_BYTES = 32 * 1024 * 1024;

/** wal_autocheckpoint for a database with pages of `pageSize` bytes. */
export function walCheckpointPages(pageSize: number): number {
  return Math.round(WAL_CHECKPOINT_BYTES / pageSize);
}

export function openSqlite(file: string, options: StoreOptions): Store {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const raw = new BetterSqlite3(file);
  // First, before any pragma reads the file: another connection (the other thread's, the CLI's)
  // may hold a lock a moment, and without it even `journal_mode` answers "database is locked" at
  // once (a start failed so in CI while its worker thread opened its connection).
  raw.pragma("busy_timeout = 10000");
  // Before anything creates the file: a new database has pages of PAGE_SIZE bytes (an existing
  // one keeps its own; see docs/decisions/0136-smaller-sqlite-pages.md for converting it).
  raw.pragma(`page_size = ${PAGE_SIZE}`);
  raw.pragma("journal_mode = WAL");
  raw.pragma(`synchronous = ${options.sqliteSynchronous ?? "FULL"}`);
  raw.pragma("foreign_keys = ON");
  // 8 MiB of page cache per connection by default (SQLITE_CACHE_MB), not 64 (issue 43): a
  // `start` has two connections, and each filled its cache as the file grew, 100+ MB of the
  // process under load. The pages a send touches (the tails of the tables and their indexes) stay
  // in it; the rest come back from the OS's page cache, not the disk (docs/benchmarks.md).
  raw.pragma(`cache_size = -${(options.sqliteCacheMb ?? 8) * 1024}`);
  raw.pragma("temp_store = MEMORY");
  // No automatic (transient) indexes: faced with a 500-row VALUES join, the planner built one on
  // messages.status per statement instead of using messages_by_upstream, and applying 500
  // delivery reports took 9 s instead of 7 ms behind a 100,000-message job. Our statements
  // all have real indexes; a planner shortcut must never cost that.
  raw.pragma("automatic_index = OFF");
  // Checkpoint every ~32 MB of WAL instead of 4 MB: the same copying, a fraction of the fsyncs
  // and of the stalls they cause on the event loop (max latency 673 ms -> 75 ms in bench/). In
  // pages of this database's size.
  raw.pragma(`wal_autocheckpoint = ${walCheckpointPages(raw.pragma("page_size", { simple: true }) as number)}`);
  raw.pragma("journal_size_limit = 67108864");
  const statements = cachingDatabase(raw, process.env.SWITCHBOARD_SQL_PROFILE === "1");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements.database }) });
  // SWITCHBOARD_SQL_PROFILE=1: the statements that took longest, told when the store closes.
  const printProfile = () => {
    if (process.env.SWITCHBOARD_SQL_PROFILE !== "1") return;
    for (const s of statements.profile().slice(0, 15)) {
      process.stderr.write(
        `thread ${threadId} ${s.ms.toFixed(0).padStart(7)} ms ${String(s.calls).padStart(8)}x ${s.sql.replace(/\s+/g, " ").slice(0, 160)}\n`,
      );
    }
  };
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  // Every connection to the same file in this process (a `start` runs HTTP and the worker role
  // in two threads, each with its own connection) hears every signal: what NOTIFY does on
  // PostgreSQL. Messages cross threads; a connection does not hear its own posts twice.
  const peers = file === ":memory:" ? undefined : new BroadcastChannel(`switchboard-signals:${path.resolve(file)}`);
  if (peers) {
    peers.onmessage = (event) => {
      const { channel, payload } = (event as { data: { channel: string; payload: string } }).data;
      bus.emit(channel, payload);
    };
    // After onmessage, which refs the channel: an open store must not keep a CLI command alive.
    peers.unref();
  }

  const signals: Signals = {
    async notify(channel, payload = "") {
      bus.emit(channel, payload);
      peers?.postMessage({ channel, payload });
    },
    listen(channel, handler) {
      bus.on(channel, handler);
      return () => bus.off(channel, handler);
    },
  };

  // synchronous=FULL: group commits write the WAL and fsync it off the thread (see
  // sqlite-group-commit.ts), on a descriptor of the -wal file opened at the first sync. The
  // WAL is never removed while this connection is open, only restarted or truncated in place.
  let walFd: number | undefined;
  const syncWal =
    file === ":memory:" || (options.sqliteSynchronous ?? "FULL") !== "FULL"
      ? undefined
      : () =>
          new Promise<void>((resolve, reject) => {
            walFd ??= fs.openSync(`${file}-wal`, "r");
            // fdatasync, as SQLite's own FULL sync of the WAL: the data and the size, not the times.
            fs.fdatasync(walFd, (error) => (error ? reject(error) : resolve()));
          });

  // Opened at the first scan: a read-only connection whose page cache holds 2 MiB, not 8.
  let scanner: { raw: BetterSqlite3.Database; db: Kysely<Database> } | undefined;
  const scanDb = () => {
    if (file === ":memory:") return db;
    if (!scanner) {
      const reader = new BetterSqlite3(file, { readonly: true });
      reader.pragma("busy_timeout = 10000");
      reader.pragma("cache_size = -2048");
      reader.pragma("automatic_index = OFF");
      scanner = { raw: reader, db: new Kysely<Database>({ dialect: new SqliteDialect({ database: reader }) }) };
    }
    return scanner.db;
  };

  const group = groupCommitTransactions(db, syncWal ? { syncWal } : {});
  const inserts = new Map<string, BetterSqlite3.Statement>();
  const prepared = new Map<string, Statement>();
  return {
    engine: "sqlite",
    // better-sqlite3 runs on this (only) connection, inside whatever transaction it has open.
    statement(text) {
      let statement = prepared.get(text);
      if (!statement) {
        const raw_ = statements.database.prepare(text); // timed with SWITCHBOARD_SQL_PROFILE=1
        statement = raw_.reader
          ? {
              run: async (_trx, params) => raw_.all(params).length,
              all: async (_trx, params) => raw_.all(params) as never,
            }
          : { run: async (_trx, params) => raw_.run(params).changes, all: async () => [] };
        prepared.set(text, statement);
      }
      return statement;
    },
    db,
    signals,
    transaction: group.transaction,
    shareUntilCommit: group.shareUntilCommit,
    // The caller is inside a transaction on this same (only) connection, so the raw statements
    // run inside it: better-sqlite3 is synchronous and nothing else can interleave.
    async insertMany(_trx, table, rows) {
      const first = rows[0];
      if (!first) return;
      const columns = Object.keys(first);
      const text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) values (${columns.map(() => "?").join(", ")})`;
      let statement = inserts.get(text);
      if (!statement) {
        statement = statements.database.prepare(text);
        inserts.set(text, statement);
      }
      const values: unknown[] = new Array(columns.length);
      for (const row of rows as Record<string, unknown>[]) {
        for (let i = 0; i < columns.length; i++) values[i] = row[columns[i]!] ?? null;
        statement.run(values);
      }
    },
    scanDb,
    migrate: () => runMigrations(db, "sqlite"),
    ping: () => pingDatabase(db),
    close: async () => {
      printProfile();
      peers?.close();
      await scanner?.db.destroy();
      await db.destroy();
      if (walFd !== undefined) fs.closeSync(walFd);
    },
  };
}
