// Planner statistics on a PostgreSQL server that does not keep them. With `autovacuum = off`
// nothing ever runs ANALYZE, and without statistics the planner reads the hot tables by guesses:
// the receipts' look-up of message parts as a sequential scan, the batched updates as hash joins,
// at a cost that grows with the table. On such a server the worker analyzes each table of its
// schema changed by more rows since its last analysis than autovacuum's own rule would allow
// (50 + 10 % of its rows, here at least 1,000), as autovacuum would: a table never analyzed at
// once, and then at most once a minute (autovacuum_naptime's default), by the server's clock so
// that several workers share one rule. bench/smpp-e2e.mjs spent 189–206 µs of the server's CPU
// per message with it against 282–294 without, and delivered 15 % more; analyzing every few
// seconds instead of once a minute (a fresh table changes by 10 % in seconds under load, three
// changes a message) spent 4 analyses of `messages` in 20 s, 1.1 s of the server's time.
// Where autovacuum runs, it does this itself and nothing here runs.
import { sql } from "kysely";
import type { Db } from "./schema.js";

/** Rows changed since a table's last analysis before it is analyzed again, at the least. */
export const ANALYZE_MIN_CHANGES = 1_000;
/** And as a share of its rows (autovacuum_analyze_scale_factor's default). */
export const ANALYZE_SCALE = 0.1;
/** A table analyzed before is analyzed again at most this often (autovacuum_naptime's default). */
export const ANALYZE_NAPTIME_SECONDS = 60;

/** Whether the server analyzes tables itself (autovacuum on, counting changes). */
export async function serverKeepsStatistics(db: Db): Promise<boolean> {
  const { rows } = await sql<{ autovacuum: string; counts: string }>`
    select current_setting('autovacuum') as autovacuum, current_setting('track_counts') as counts`.execute(db);
  return rows[0]?.autovacuum === "on" && rows[0]?.counts === "on";
}

/**
 * Analyzes the tables of the current schema changed enough since their last analysis, and never
 * analyzed or not in the last `naptimeSeconds`; returns their names.
 */
export async function analyzeChangedTables(db: Db, naptimeSeconds = ANALYZE_NAPTIME_SECONDS): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select relname as name
      from pg_stat_user_tables
     where schemaname = current_schema()
       and n_mod_since_analyze > greatest(${sql.lit(ANALYZE_MIN_CHANGES)}, ${sql.lit(ANALYZE_SCALE)} * n_live_tup)
       and coalesce(greatest(last_analyze, last_autoanalyze) < now() - make_interval(secs => ${naptimeSeconds}), true)
     order by relname`.execute(db);
  for (const { name } of rows) await sql`analyze ${sql.id(name)}`.execute(db);
  return rows.map((row) => row.name);
}
