import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openStore } from "../../../src/base/store/store.js";
import { createEmptyDatabase } from "../../helpers/empty-database.js";
import { createTestDatabase, postgresAvailable, TEST_POSTGRES_URL, type TestDatabase } from "../../helpers/engines.js";

// Test files run in parallel, each creating and dropping its own PostgreSQL schema. Kysely's
// stock introspector, which the Migrator asks whether its tables exist, read the columns of
// every table of every schema, so a first migration failed ("relation ... does not exist",
// "schema ... does not exist") whenever another schema was dropped during that query. Ours
// reads only the current schema, so nothing another schema does can reach it.
describe.skipIf(!postgresAvailable)("catalog introspection for migrations [postgres]", () => {
  let db: TestDatabase;
  const other = `sb_other_${process.pid}`;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    // In the test database's own database, beside its schema.
    const client = new pg.Client({ connectionString: db.postgresUrl });
    await client.connect();
    await client.query(`create schema if not exists ${other}; create table if not exists ${other}.elsewhere (id int)`);
    await client.end();
  });
  afterAll(async () => {
    const client = new pg.Client({ connectionString: db.postgresUrl });
    await client.connect();
    await client.query(`drop schema if exists ${other} cascade`);
    await client.end();
    await db.drop();
  });

  it("sees only the current schema's tables and the current schema", async () => {
    const tables = await db.store.db.introspection.getTables({ withInternalKyselyTables: true });
    expect(new Set(tables.map((table) => table.schema))).toEqual(new Set([db.schema]));
    expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(["schema_migrations", "messages"]));
    expect(tables.map((table) => table.name)).not.toContain("elsewhere");
    expect(await db.store.db.introspection.getSchemas()).toEqual([{ name: db.schema }]);
  });

  it("migrates a fresh schema to the latest migration", async () => {
    // Test databases are copies of a template migrated once per run: this one is migrated here.
    const fresh = await createEmptyDatabase("postgres");
    const store = await openStore({ engine: "postgres", url: TEST_POSTGRES_URL }, { pgSchema: fresh.schema! });
    try {
      await store.migrate();
      const tables = await store.db.introspection.getTables();
      expect(tables.map((table) => table.name)).toContain("messages");
      expect(await fresh.tables()).toContain("messages");
    } finally {
      await store.close();
      await fresh.drop();
    }
  });

  /** The key of a schema's migration lock ($1 its name), as src/store/pg-dialect.ts derives it. */
  const SCHEMA_LOCK = "hashtextextended('switchboard migrations ' || $1, 0)";

  it("takes its migration lock per schema: another schema's lock does not hold it up, its own does", async () => {
    const empty = await createEmptyDatabase("postgres");
    const holder = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await holder.connect();
    const store = await openStore({ engine: "postgres", url: TEST_POSTGRES_URL }, { pgSchema: empty.schema! });
    try {
      // Kysely's own lock, one for the whole server, and another schema's: neither waits.
      await holder.query("select pg_advisory_lock(3853314791062309107)");
      await holder.query(`select pg_advisory_lock(${SCHEMA_LOCK})`, [other]);
      await store.migrate();
      expect(await empty.tables()).toContain("messages");
      await holder.query("select pg_advisory_unlock_all()");

      // This schema's lock: a migration waits for it (a second process migrating the same schema).
      const again = await createEmptyDatabase("postgres");
      const againSchema = again.schema!;
      const second = await openStore({ engine: "postgres", url: TEST_POSTGRES_URL }, { pgSchema: againSchema });
      try {
        await holder.query(`select pg_advisory_lock(${SCHEMA_LOCK})`, [againSchema]);
        let done = false;
        const migrating = second.migrate().then(() => {
          done = true;
        });
        // The migration waits on the lock the holder has (a waiter on the same advisory key).
        const waiting = async () => {
          const { rows } = await holder.query(
            `select count(*)::int as n from pg_locks w join pg_locks h
                on h.locktype = 'advisory' and h.granted and h.pid = pg_backend_pid()
               and (h.classid, h.objid, h.objsubid) = (w.classid, w.objid, w.objsubid)
             where w.locktype = 'advisory' and not w.granted`,
          );
          return rows[0].n as number;
        };
        await vi.waitFor(async () => expect(await waiting()).toBe(1), { timeout: 10_000, interval: 20 });
        expect(done).toBe(false);
        expect(await again.tables()).not.toContain("messages");
        await holder.query("select pg_advisory_unlock_all()");
        await migrating;
        expect(await again.tables()).toContain("messages");
      } finally {
        await second.close();
        await again.drop();
      }
    } finally {
      await holder.end();
      await store.close();
      await empty.drop();
    }
  });
});
