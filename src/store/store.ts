// Opens the database (SQLite or PostgreSQL) behind one Kysely interface, runs migrations,
// and offers write transactions and cross-process wake-up signals.
import { EventEmitter } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { threadId } from "node:worker_threads";
import BetterSqlite3 from "better-sqlite3";
import { CompiledQuery, type Insertable, Kysely, Migrator, SqliteDialect, sql } from "kysely";
import pg from "pg";
import type { Engine } from "./engine.js";
import { migrationProvider } from "./migrations/index.js";
import { CurrentSchemaPostgresDialect } from "./pg-dialect.js";
import type { Database, Db } from "./schema.js";
import { groupCommitTransactions } from "./sqlite-group-commit.js";
import { cachingDatabase } from "./sqlite-statements.js";

export type { Db } from "./schema.js";

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
  migrate(): Promise<void>;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface Statement {
  /** Rows changed. */
  run(trx: Db, params: readonly unknown[]): Promise<number>;
  all<R>(trx: Db, params: readonly unknown[]): Promise<R[]>;
}

export interface StoreOptions {
  sqliteSynchronous?: "FULL" | "NORMAL";
  /** PostgreSQL schema to use instead of `public` (tests give every file its own). */
  pgSchema?: string;
  pgPoolSize?: number;
}

export async function openStore(target: DatabaseTarget, options: StoreOptions = {}): Promise<Store> {
  return target.engine === "sqlite" ? openSqlite(target.file, options) : openPostgres(target.url, options);
}

function openSqlite(file: string, options: StoreOptions): Store {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const raw = new BetterSqlite3(file);
  raw.pragma("journal_mode = WAL");
  raw.pragma(`synchronous = ${options.sqliteSynchronous ?? "FULL"}`);
  raw.pragma("foreign_keys = ON");
  raw.pragma("busy_timeout = 10000");
  raw.pragma("cache_size = -65536");
  raw.pragma("temp_store = MEMORY");
  // No automatic (transient) indexes: faced with a 500-row VALUES join, the planner built one on
  // messages.status per statement instead of using messages_by_upstream, and applying 500
  // delivery reports took 9 s instead of 7 ms behind a 100,000-message job. Our statements
  // all have real indexes; a planner shortcut must never cost that.
  raw.pragma("automatic_index = OFF");
  // Checkpoint every ~32 MB of WAL instead of 4 MB: the same copying, a fraction of the fsyncs
  // and of the stalls they cause on the event loop (max latency 673 ms -> 75 ms in bench/).
  raw.pragma("wal_autocheckpoint = 8000");
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

  const inserts = new Map<string, BetterSqlite3.Statement>();
  const prepared = new Map<string, Statement>();
  return {
    engine: "sqlite",
    // better-sqlite3 runs on this (only) connection, inside whatever transaction it has open.
    statement(text) {
      let statement = prepared.get(text);
      if (!statement) {
        const raw_ = raw.prepare(text);
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
    transaction: groupCommitTransactions(db, syncWal ? { syncWal } : {}),
    // The caller is inside a transaction on this same (only) connection, so the raw statements
    // run inside it: better-sqlite3 is synchronous and nothing else can interleave.
    async insertMany(_trx, table, rows) {
      const first = rows[0];
      if (!first) return;
      const columns = Object.keys(first);
      const text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) values (${columns.map(() => "?").join(", ")})`;
      let statement = inserts.get(text);
      if (!statement) {
        statement = raw.prepare(text);
        inserts.set(text, statement);
      }
      const values: unknown[] = new Array(columns.length);
      for (const row of rows as Record<string, unknown>[]) {
        for (let i = 0; i < columns.length; i++) values[i] = row[columns[i]!] ?? null;
        statement.run(values);
      }
    },
    migrate: () => runMigrations(db, "sqlite"),
    ping: async () => {
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    close: async () => {
      printProfile();
      peers?.close();
      await db.destroy();
      if (walFd !== undefined) fs.closeSync(walFd);
    },
  };
}

function pgTypes(): pg.CustomTypesConfig {
  // int8 (20) and numeric (1700) arrive as strings by default; our values fit in a double.
  return {
    getTypeParser: (oid: number, format?: "text" | "binary") =>
      oid === 20 || oid === 1700 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format),
  } as pg.CustomTypesConfig;
}

function openPostgres(url: string, options: StoreOptions): Store {
  const schemaOption = options.pgSchema ? `-c search_path=${options.pgSchema}` : undefined;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.pgPoolSize ?? 10,
    types: pgTypes(),
    ...(schemaOption ? { options: schemaOption } : {}),
  });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it on the next checkout.
  });
  // The server processes behind this pool's connections: a NOTIFY sent by one of them was
  // already heard in this process when it was sent (signals.notify), so LISTEN skips it.
  const ownBackends = new Set<number>();
  pool.on("connect", (client) => {
    const pid = (client as pg.Client & { processID?: number }).processID;
    if (pid) ownBackends.add(pid);
    // The pool listens for errors only while a client is idle in it: a connection lost while a
    // transaction holds it (the server restarted) would emit an 'error' nobody hears and end
    // the process. Its statement fails instead, and the pool drops the client when it returns.
    client.on("error", () => undefined);
  });
  pool.on("remove", (client) => {
    const pid = (client as pg.Client & { processID?: number }).processID;
    if (pid) ownBackends.delete(pid);
  });
  const db = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });

  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  let listener: pg.Client | undefined;
  const subscribed = new Set<string>();
  let closed = false;
  // A pg client runs one query at a time (pg 9 refuses a second one in flight), and the workers
  // ask for their channels all at once: connecting and each LISTEN take their turn on one chain.
  let listenerQueue: Promise<void> = Promise.resolve();

  // A lost listener (the server restarted, the network broke) connects again after a pause
  // and listens on every channel again; one retry is pending at a time.
  let retry: NodeJS.Timeout | undefined;
  const listenAgain = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      if (closed) return;
      const channels = [...subscribed];
      subscribed.clear();
      for (const channel of channels) void ensureListener(channel);
    }, LISTENER_RETRY_MS);
    retry.unref();
  };

  const connectListener = async (): Promise<pg.Client> => {
    if (listener) return listener;
    const client = new pg.Client({ connectionString: url, ...(schemaOption ? { options: schemaOption } : {}) });
    client.on("notification", (msg) => {
      if (!ownBackends.has(msg.processId)) bus.emit(msg.channel, msg.payload ?? "");
    });
    const lost = () => {
      if (listener !== client) return;
      listener = undefined;
      // Wake-ups are an optimisation: the pollers still find due work meanwhile.
      listenAgain();
    };
    client.on("error", lost);
    client.on("end", lost);
    listener = client;
    try {
      await client.connect();
    } catch (error) {
      lost();
      throw error;
    }
    return client;
  };

  const ensureListener = (channel: string): Promise<void> => {
    if (subscribed.has(channel)) return listenerQueue;
    subscribed.add(channel);
    listenerQueue = listenerQueue
      .then(async () => {
        if (closed) return;
        const client = await connectListener();
        if (!closed) await client.query(`LISTEN ${pgChannel(channel, options.pgSchema)}`);
      })
      .catch(() => {
        // The listener is lost and listenAgain() retries; polling covers the gap.
      });
    return listenerQueue;
  };

  const signals: Signals = {
    async notify(channel, payload = "") {
      const name = pgChannel(channel, options.pgSchema);
      // This process hears its own signal at once, as on SQLite: a change it just made (an
      // operator approving a template) is seen by its next request, not after NOTIFY's round
      // trip through the server; its own LISTEN skips it (ownBackends).
      bus.emit(name, payload);
      await sql`select pg_notify(${name}, ${payload})`.execute(db);
    },
    listen(channel, handler) {
      const name = pgChannel(channel, options.pgSchema);
      bus.on(name, handler);
      void ensureListener(channel);
      return () => bus.off(name, handler);
    },
  };

  const statements = new Map<string, Statement>();
  return {
    engine: "postgres",
    statement(text) {
      let statement = statements.get(text);
      if (!statement) {
        let n = 0;
        const pgText = text.replace(/\?/g, () => `$${++n}`);
        statement = {
          run: async (trx, params) =>
            Number((await trx.executeQuery(CompiledQuery.raw(pgText, [...params]))).numAffectedRows ?? 0),
          all: async (trx, params) => (await trx.executeQuery(CompiledQuery.raw(pgText, [...params]))).rows as never,
        };
        statements.set(text, statement);
      }
      return statement;
    },
    db,
    signals,
    transaction: (fn) => db.transaction().execute(fn),
    async insertMany(trx, table, rows) {
      // 500 rows x a few dozen columns stays far below PostgreSQL's 65,535 parameters.
      for (let i = 0; i < rows.length; i += 500) {
        await trx
          .insertInto(table)
          .values(rows.slice(i, i + 500) as never)
          .execute();
      }
    },
    migrate: () => runMigrations(db, "postgres"),
    ping: async () => {
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    close: async () => {
      closed = true;
      clearTimeout(retry);
      await listenerQueue;
      await listener?.end().catch(() => undefined);
      await db.destroy();
    },
  };
}

/** Pause before a lost LISTEN connection is made again. */
const LISTENER_RETRY_MS = 1_000;

/** Channel names are scoped by schema so parallel test schemas never wake each other. */
function pgChannel(channel: string, schema: string | undefined): string {
  return (schema ? `${schema}_${channel}` : `switchboard_${channel}`).replace(/[^a-z0-9_]/gi, "_").toLowerCase();
}

async function runMigrations(db: Db, engine: Engine): Promise<void> {
  // Without an explicit schema Kysely looks for its bookkeeping tables in every schema, and
  // another schema's tables would make it skip creating ours.
  const schema =
    engine === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const provider = migrationProvider(engine);
  // Already at the latest migration (every start after the first): nothing to do.
  const wanted = Object.keys(await provider.getMigrations());
  const applied = await sql<{ name: string }>`select name from schema_migrations`
    .execute(db)
    .then((result) => new Set(result.rows.map((row) => row.name)))
    .catch(() => new Set<string>());
  if (wanted.every((name) => applied.has(name))) return;
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: "schema_migrations",
    migrationLockTableName: "schema_migrations_lock",
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (!error && !failed) return;
  const cause = error instanceof Error ? error.message : String(error ?? "");
  throw new Error(`Database migration ${failed?.migrationName ?? ""} failed: ${cause}`.trim());
}
