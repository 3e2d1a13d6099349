// The PostgreSQL store: a pg pool behind Kysely (its schema set per connection), statements
// prepared once, and wake-up signals over LISTEN/NOTIFY on one connection that reconnects.
import { EventEmitter } from "node:events";
import { CompiledQuery, Kysely, sql } from "kysely";
import pg from "pg";
import { pingDatabase, type Signals, type Statement, type Store, type StoreOptions } from "./contract.js";
import { runMigrations } from "./migrations/index.js";
import { CurrentSchemaPostgresDialect } from "./pg-dialect.js";
import type { Database } from "./schema.js";

function pgTypes(): pg.CustomTypesConfig {
  // int8 (20) and numeric (1700) arrive as strings by default; our values fit in a double.
  return {
    getTypeParser: (oid: number, format?: "text" | "binary") =>
      oid === 20 || oid === 1700 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format),
  } as pg.CustomTypesConfig;
}

export function openPostgres(url: string, options: StoreOptions): Store {
  const schemaOption = options.pgSchema ? `-c search_path=${options.pgSchema}` : undefined;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.pgPoolSize ?? 10,
    types: pgTypes(),
    // Queries are written without waiting for the answer to the one before (pipelineTransactions).
    pipeline: options.pgPipeline !== false,
    ...(schemaOption ? { options: schemaOption } : {}),
  });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it on the next checkout.
  });
  // The server processes behind this pool's connections: a NOTIFY sent by one of them was
  // already heard in this process when it was sent (signals.notify), so LISTEN skips it.
  const ownBackends = new Set<number>();
  /** Statement texts run as named prepared statements, and their names. */
  const prepared = new Map<string, string>();
  const named = (text: string): string => {
    if (!prepared.has(text)) prepared.set(text, `sb_${prepared.size}`);
    return text;
  };
  pool.on("connect", (client) => {
    const pid = (client as pg.Client & { processID?: number }).processID;
    if (pid) ownBackends.add(pid);
    if (options.pgPreparedStatements !== false)
      prepareNamed(client, prepared, options.pgPlanRefreshMs ?? PLAN_REFRESH_MS, options.pgPipeline !== false);
    if (options.pgPipeline !== false) pipelineTransactions(client);
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

  // Each table's column types, read once: the casts of insertMany's arrays.
  const tableTypes = new Map<string, Promise<Map<string, string>>>();
  const columnTypes = (trx: Kysely<Database>, table: string): Promise<Map<string, string>> => {
    let types = tableTypes.get(table);
    if (!types) {
      types = sql<{ name: string; type: string }>`
        select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
         where attrelid = to_regclass(${table}) and attnum > 0 and not attisdropped`
        .execute(trx)
        .then(({ rows }) => new Map(rows.map((row) => [row.name, row.type])));
      // A table not there yet (or a failed read) is asked again next time.
      void types.then(
        (found) => found.size === 0 && tableTypes.delete(table),
        () => tableTypes.delete(table),
      );
      tableTypes.set(table, types);
    }
    return types;
  };

  const statements = new Map<string, Statement>();
  return {
    engine: "postgres",
    statement(text) {
      let statement = statements.get(text);
      if (!statement) {
        let n = 0;
        const pgText = named(text.replace(/\?/g, () => `$${++n}`));
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
    // The server holds the pages: a scan costs this process one page of rows at a time.
    scanDb: () => db,
    signals,
    transaction: (fn) => db.transaction().execute(fn),
    async insertMany(trx, table, rows) {
      const columns = sameFlatColumns(rows as readonly Record<string, unknown>[]);
      // One array per column and one statement text per table, whatever the number of rows:
      // a 100-row VALUES list has thousands of parameters for the server to parse and analyse
      // (parsing and analysis were a tenth of its CPU in bench/smpp-e2e), the arrays a few dozen.
      const types = columns && rows.length > 1 ? await columnTypes(trx, table) : undefined;
      if (columns && types && columns.every((column) => types.has(column))) {
        const list = columns.map((column) => `"${column}"`).join(", ");
        const arrays = columns.map((column, i) => `$${i + 1}::${types.get(column)}[]`).join(", ");
        const values = columns.map((column) => rows.map((row) => (row as Record<string, unknown>)[column]));
        const insert = named(`${DEFERRABLE}insert into "${table}" (${list}) select * from unnest(${arrays})`);
        await trx.executeQuery(CompiledQuery.raw(insert, values));
        return;
      }
      // 500 rows x a few dozen columns stays far below PostgreSQL's 65,535 parameters.
      for (let i = 0; i < rows.length; i += 500) {
        await trx
          .insertInto(table)
          .values(rows.slice(i, i + 500) as never)
          .execute();
      }
    },
    migrate: () => runMigrations(db, "postgres"),
    ping: () => pingDatabase(db),
    close: async () => {
      closed = true;
      clearTimeout(retry);
      await listenerQueue;
      await listener?.end().catch(() => undefined);
      await db.destroy();
    },
  };
}

/**
 * The columns of rows that all set the same columns to strings, numbers, booleans or nulls
 * (what an array parameter carries as it is), or undefined when they do not.
 */
function sameFlatColumns(rows: readonly Record<string, unknown>[]): string[] | undefined {
  const first = rows[0];
  if (!first) return undefined;
  const columns = Object.keys(first);
  for (const row of rows) {
    let count = 0;
    for (const key in row) {
      const value = row[key];
      if (!(key in first)) return undefined;
      if (value === undefined || (value !== null && typeof value === "object") || typeof value === "bigint") {
        return undefined;
      }
      count++;
    }
    if (count !== columns.length) return undefined;
  }
  return columns;
}

/** Pause before a lost LISTEN connection is made again. */
const LISTENER_RETRY_MS = 1_000;

/** Channel names are scoped by schema so parallel test schemas never wake each other. */
function pgChannel(channel: string, schema: string | undefined): string {
  return (schema ? `${schema}_${channel}` : `switchboard_${channel}`).replace(/[^a-z0-9_]/gi, "_").toLowerCase();
}

/** How often a connection drops its cached plans: a generic plan follows its tables' growth within this. */
export const PLAN_REFRESH_MS = 10_000;

/**
 * Runs the texts of `prepared` on this client as named prepared statements: parsed once per
 * connection, and planned once as well where PostgreSQL finds a generic plan as cheap as its
 * custom ones (the batched updates by key, the unnest inserts). Kysely asks for every query
 * as `query(text, values)`; a known text goes out as `{ name, text, values }` instead.
 *
 * A generic plan stays cached until something invalidates it, and one made while a table was
 * small is a sequential scan (the claim sorting the table, the report update scanning it), kept
 * while the table grows by thousands of rows a second: so every `refreshMs` the connection drops
 * its plans (`DISCARD PLANS`, run before its next statement; the statements stay prepared)
 * and each is planned again for the tables as they are then.
 *
 * A prepared `select *` whose table gained a column (a newer version's migration, during a
 * rolling upgrade) fails with "cached plan must not change result type" until it is prepared
 * again: that statement fails, and the connection prepares every statement afresh, under new
 * names, from the next one on.
 */
function prepareNamed(
  client: pg.PoolClient,
  prepared: ReadonlyMap<string, string>,
  refreshMs: number,
  pipelined: boolean,
): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  let plannedAt = Date.now();
  let generation = 0;
  /** Statements to run before the next named one (without pipelining, never queued beside a query in flight: pg 9 refuses that). */
  let before: string | undefined;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [text, values, callback] = args;
    const base = typeof text === "string" && callback === undefined ? prepared.get(text) : undefined;
    if (!base) return query(...args);
    const now = Date.now();
    if (now - plannedAt >= refreshMs) {
      plannedAt = now;
      before = before ? `${before}; discard plans` : "discard plans";
    }
    const asked = generation;
    const run = () =>
      query({ name: `${base}_${asked}`, text, values }).catch((error: unknown) => {
        if (asked === generation && (error as { code?: string }).code === "0A000") {
          generation++;
          // The old names are never used again: free them before the next named statement.
          before = before ? `${before}; deallocate all` : "deallocate all";
        }
        throw error;
      });
    if (!before) return run();
    const first = before;
    before = undefined;
    // In a failed transaction they fail as the statement after them will; they go first again
    // before the next named statement.
    const again = () => {
      before = before ? `${first}; ${before}` : first;
    };
    if (pipelined) {
      // Both written now, in order: a statement sent after this one (pipelineTransactions sends
      // the next without waiting) must not overtake it.
      void query(first).catch(again);
      return run();
    }
    return query(first).then(run, () => {
      again();
      return run();
    });
  };
}

/**
 * Marks a statement whose answer nobody reads (insertMany's inserts): inside a transaction it
 * is sent without waiting for its answer (pipelineTransactions).
 */
const DEFERRABLE = "/* deferrable */ ";

type PgResult = { command: string; rowCount: number | null; rows: unknown[] };
type QueryFn = (...args: unknown[]) => Promise<PgResult>;

/**
 * Saves round trips inside transactions, on a client in pg's pipeline mode (each query written
 * at once, its own Sync after it, answered in order). Kysely waits for each statement before it
 * sends the next, so two kinds are answered here at once instead of by the server:
 *
 * - `begin`: it goes out, and Kysely's first statement follows it in the same round trip;
 * - a DEFERRABLE statement, or a `set local`, inside a transaction: it goes out, and whatever
 *   Kysely sends next follows it; its answer is not read (insertMany's are not).
 *
 * What they answer is still checked: the next statement that is waited for (at the latest the
 * COMMIT) settles only after them, and fails with the first of their errors. PostgreSQL has
 * aborted the transaction by then (a statement after a failed one fails; a COMMIT after it rolls
 * back), so nothing is committed that the caller was not told about. A ROLLBACK ignores them.
 * Outside a transaction every statement is waited for, as without pipelining.
 */
function pipelineTransactions(client: pg.PoolClient): void {
  const query = client.query.bind(client) as QueryFn;
  let inTransaction = false;
  /** Statements answered here that the server has yet to answer. */
  let unanswered: Promise<PgResult>[] = [];
  const sendUnanswered = (text: string, values: unknown, command: string): Promise<PgResult> => {
    const sent = query(text, values);
    // Read by the next statement waited for; never an unhandled rejection meanwhile.
    sent.catch(() => undefined);
    unanswered.push(sent);
    return Promise.resolve({ command, rowCount: 0, rows: [] });
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [text, values, callback] = args;
    if (typeof text !== "string" || callback !== undefined) return query(...args);
    const head = text.slice(0, 20).toLowerCase();
    if (head === "begin") {
      inTransaction = true;
      return sendUnanswered(text, values, "BEGIN");
    }
    if (inTransaction && text.startsWith(DEFERRABLE)) return sendUnanswered(text, values, "INSERT");
    if (inTransaction && head.startsWith("set local ")) return sendUnanswered(text, values, "SET");
    const ends = head === "commit" || head === "rollback";
    if (ends || head.startsWith("start transaction")) inTransaction = !ends;
    const result = query(...args);
    if (unanswered.length === 0) return result;
    const before = unanswered;
    unanswered = [];
    if (head === "rollback") return result;
    return Promise.all(before).then(
      () => result,
      (error: unknown) =>
        result.then(
          () => Promise.reject(error),
          () => Promise.reject(error),
        ),
    );
  };
}
