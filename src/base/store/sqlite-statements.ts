// Kysely's SQLite driver prepares every query anew; better-sqlite3's prepare costs more than
// running a simple statement. This hands Kysely a database whose `prepare` remembers statements
// by their SQL text (bounded), and can time them (SWITCHBOARD_SQL_PROFILE=1) for profiling.
import type BetterSqlite3 from "better-sqlite3";

const MAX_STATEMENTS = 500;

export interface StatementProfile {
  sql: string;
  calls: number;
  ms: number;
}

export function cachingDatabase(raw: BetterSqlite3.Database, profile = false) {
  const cache = new Map<string, BetterSqlite3.Statement>();
  const timings = new Map<string, StatementProfile>();

  const timed = (sql: string, statement: BetterSqlite3.Statement): BetterSqlite3.Statement => {
    const entry: StatementProfile = timings.get(sql) ?? { sql, calls: 0, ms: 0 };
    timings.set(sql, entry);
    const wrap =
      <A extends unknown[], R>(fn: (...args: A) => R) =>
      (...args: A): R => {
        const started = performance.now();
        try {
          return fn(...args);
        } finally {
          entry.calls++;
          entry.ms += performance.now() - started;
        }
      };
    return new Proxy(statement, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if ((prop === "all" || prop === "run" || prop === "get" || prop === "iterate") && typeof value === "function") {
          return wrap(value.bind(target));
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  };

  return {
    database: {
      close: () => raw.close(),
      prepare(sql: string): BetterSqlite3.Statement {
        let statement = cache.get(sql);
        if (!statement) {
          statement = raw.prepare(sql);
          if (profile) statement = timed(sql, statement);
          if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value as string);
          cache.set(sql, statement);
        }
        return statement;
      },
    },
    profile: (): StatementProfile[] => [...timings.values()].sort((a, b) => b.ms - a.ms),
  };
}
