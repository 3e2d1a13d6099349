// A database with nothing in it (no tables, no migrations) for tests of what a first run
// does: `migrate`, and `start` seeding the demo credentials.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { type Kysely, Migrator, sql } from "kysely";
import pg from "pg";
import type { Engine } from "../../src/base/store/engine.js";
import { migrationProvider } from "../../src/base/store/migrations/index.js";
import type { Store } from "../../src/base/store/store.js";
import { TEST_POSTGRES_URL } from "./engines.js";

export interface EmptyDatabase {
  /** DATABASE_URL for a child process. */
  url: string;
  /** PostgreSQL: the schema (in `url`'s search_path), for a store opened in this process. */
  schema?: string;
  /** Tables that exist now. */
  tables(): Promise<string[]>;
  drop(): Promise<void>;
}

export async function createEmptyDatabase(engine: Engine): Promise<EmptyDatabase> {
  const name = `sb_e_${randomBytes(6).toString("hex")}`;
  if (engine === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-empty-"));
    const file = path.join(dir, `${name}.db`);
    return {
      url: `sqlite:${file}`,
      tables: async () => {
        if (!fs.existsSync(file)) return [];
        const raw = new BetterSqlite3(file, { readonly: true });
        try {
          const rows = raw.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[];
          return rows.map((r) => r.name).sort();
        } finally {
          raw.close();
        }
      },
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  await query(`create schema ${name}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set("options", `-c search_path=${name}`);
  return {
    url: url.toString(),
    schema: name,
    tables: async () =>
      (
        await query<{ table_name: string }>(
          "select table_name from information_schema.tables where table_schema = $1 order by table_name",
          [name],
        )
      ).map((r) => r.table_name),
    drop: async () => {
      await query(`drop schema if exists ${name} cascade`);
    },
  };
}

/** Brings a store opened on an empty database to the migration `name` (and no further), as `migrate` would. */
export async function migrateTo(store: Store, engine: Engine, name: string): Promise<void> {
  const schema =
    engine === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db: store.db as unknown as Kysely<unknown>,
    provider: migrationProvider(engine),
    migrationTableName: "schema_migrations",
    migrationLockTableName: "schema_migrations_lock",
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error;
}

/** An account row with only the columns every migration since 0001 has: for data written before a migration. */
export function earlyAccountRow(username: string) {
  return {
    username,
    password_hash: "x",
    role: "customer" as const,
    status: "active" as const,
    time_zone: "Asia/Kolkata",
    flood_limit: 0,
    get_api_enabled: 0,
    international_enabled: 0,
    failed_logins: 0,
    locked_until: null,
    created_at: 0,
    updated_at: 0,
  };
}
