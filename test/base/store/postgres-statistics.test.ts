// Planner statistics on a PostgreSQL server without autovacuum: the worker's housekeeping
// analyzes the tables of its schema that changed enough, and leaves the rest (and a server with
// autovacuum) alone.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../../src/app/gateway.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { loadConfig } from "../../../src/base/runtime/config.js";
import { createMetrics } from "../../../src/base/runtime/metrics.js";
import {
  ANALYZE_MIN_CHANGES,
  analyzeChangedTables,
  serverKeepsStatistics,
} from "../../../src/base/store/postgres-statistics.js";
import { type Dispatcher, startHousekeeping } from "../../../src/delivery/dispatch/index.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../helpers/engines.js";

const suite = postgresAvailable ? describe : describe.skip;

suite("planner statistics on PostgreSQL", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
  });
  afterAll(async () => {
    await db.drop();
  });

  async function lastAnalyzed(table: string): Promise<Date | null> {
    // The server's statistics counters reach pg_stat_* a moment after the commit.
    await sql`select pg_stat_force_next_flush()`.execute(db.store.db);
    const { rows } = await sql<{ at: Date | null }>`
      select last_analyze as at from pg_stat_user_tables
       where schemaname = current_schema() and relname = ${table}`.execute(db.store.db);
    return rows[0]?.at ?? null;
  }

  async function probe(name: string, rows: number): Promise<void> {
    await sql`create table ${sql.id(name)} (id integer)`.execute(db.store.db);
    await sql`insert into ${sql.id(name)} select generate_series(1, ${rows})`.execute(db.store.db);
    await sql`select pg_stat_force_next_flush()`.execute(db.store.db);
  }

  it("analyzes the tables changed by more rows than the threshold since their last analysis, once", async () => {
    await probe("stats_big", ANALYZE_MIN_CHANGES * 3);
    await probe("stats_small", 10);
    await vi.waitFor(async () => expect(await analyzeChangedTables(db.store.db)).toContain("stats_big"));
    expect(await lastAnalyzed("stats_big")).toBeInstanceOf(Date);
    expect(await lastAnalyzed("stats_small")).toBeNull();
    // Analyzed: its changes since are counted from zero.
    expect(await analyzeChangedTables(db.store.db)).not.toContain("stats_big");
  });

  it("analyzes a table again only once the naptime since its last analysis has passed, as autovacuum would", async () => {
    await probe("stats_nap", ANALYZE_MIN_CHANGES * 3);
    // Never analyzed: at once, whatever the naptime.
    await vi.waitFor(async () => expect(await analyzeChangedTables(db.store.db, 3_600)).toContain("stats_nap"));
    await sql`insert into stats_nap select generate_series(1, ${ANALYZE_MIN_CHANGES * 3})`.execute(db.store.db);
    await sql`select pg_stat_force_next_flush()`.execute(db.store.db);
    // Changed enough again, but analyzed within the hour.
    expect(await analyzeChangedTables(db.store.db, 3_600)).not.toContain("stats_nap");
    // With the naptime passed (none), it is.
    await vi.waitFor(async () => expect(await analyzeChangedTables(db.store.db, 0)).toContain("stats_nap"));
  });

  it("runs in housekeeping only where the server does not keep statistics itself", async () => {
    const keeps = await serverKeepsStatistics(db.store.db);
    const { rows } = await sql<{ autovacuum: string }>`select current_setting('autovacuum') as autovacuum`.execute(
      db.store.db,
    );
    expect(keeps).toBe(rows[0]!.autovacuum === "on");
    await probe("stats_housekeeping", ANALYZE_MIN_CHANGES * 2);
    const housekeeping = startHousekeeping(
      {
        config: loadConfig({}),
        store: db.store,
        clock: systemClock,
        logger: createLogger({ logLevel: "silent" }),
        metrics: createMetrics({ defaultMetrics: false }),
      },
      { wake: () => undefined } as unknown as Dispatcher,
      undefined,
      undefined,
      60_000,
    );
    try {
      await housekeeping.runOnce(); // the first round looks
      const analyzed = await lastAnalyzed("stats_housekeeping");
      if (keeps) expect(analyzed).toBeNull();
      else expect(analyzed).toBeInstanceOf(Date);
    } finally {
      await housekeeping.stop();
    }
  });
});
