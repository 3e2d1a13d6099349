// Migrates once per run what every test file's database is copied from (vitest globalSetup):
// an SQLite file, copied per test file, and a PostgreSQL database, the template of each test
// file's own database (CREATE DATABASE … TEMPLATE, its schema renamed). Migrating a fresh
// database per test file cost 0.5–1.6 s on SQLite (its commits' fsyncs) and 2–6 s on
// PostgreSQL on a loaded 2-core machine; a copy costs a few milliseconds and about 0.4 s.
// At the end of the run every database of the run is dropped, ten at a time (with those of runs
// that ended without dropping theirs): DROP DATABASE waits for a checkpoint (up to 47 s amid
// other suites' writes), so a file does not drop its own, and drops waiting together share one.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { processRunning } from "../../src/base/store/processes.js";
import { openStore } from "../../src/base/store/store.js";

const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** The schema of the PostgreSQL template: each copy renames it to its own name. */
export const TEMPLATE_SCHEMA = "sb_template";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's own prefix of database names (PostgreSQL: dropped at the end of the run). */
    databaseRun: string;
    /** A migrated SQLite file, closed (nothing in a WAL): copy it. */
    sqliteTemplate: string;
    /** A migrated PostgreSQL database on TEST_DATABASE_URL's server, or "" (migrate per file). */
    postgresTemplate: string;
  }
}

async function onPostgres<T>(database: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function adminDatabase(): string {
  return decodeURIComponent(new URL(POSTGRES_URL).pathname.slice(1)) || "postgres";
}

async function sqliteTemplate(dir: string): Promise<string> {
  const file = path.join(dir, "template.db");
  const store = await openStore({ engine: "sqlite", file }, { sqliteSynchronous: "NORMAL" });
  await store.migrate();
  await store.close();
  return file;
}

/** The migrated template, or "" when PostgreSQL is unreachable (engines.ts then skips or fails). */
async function postgresTemplate(run: string): Promise<string> {
  const name = `${run}_template`;
  try {
    await onPostgres(adminDatabase(), (client) => client.query(`create database ${name}`));
  } catch {
    return "";
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  await onPostgres(name, (client) => client.query(`create schema ${TEMPLATE_SCHEMA}`));
  const store = await openStore({ engine: "postgres", url: url.toString() }, { pgSchema: TEMPLATE_SCHEMA });
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  // A template nobody connects to: a connection to it makes CREATE DATABASE … TEMPLATE fail.
  await onPostgres(adminDatabase(), (client) => client.query(`alter database ${name} allow_connections false`));
  return name;
}

const DROPS_AT_ONCE = 10;

/** A run's databases are named `sb_r<pid of its vitest>_<8 hex>_…`: `<pid>` tells whether it still runs. */
const RUN_NAME = /^sb_r(\d+)_[0-9a-f]{8}_/;

/**
 * The run's own databases, and those of runs on this machine that ended without dropping theirs
 * (killed, or cut short by vitest's teardownTimeout): a leftover run's hundred-odd databases
 * take a gigabyte and more.
 */
async function dropRunDatabases(run: string): Promise<void> {
  const local = ["127.0.0.1", "localhost", "[::1]"].includes(new URL(POSTGRES_URL).hostname);
  await onPostgres(adminDatabase(), async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      "select datname from pg_database where starts_with(datname, 'sb_r') order by starts_with(datname, $1) desc",
      [`${run}_`],
    );
    const names = rows
      .map(({ datname }) => datname)
      .filter((name) => {
        if (name.startsWith(`${run}_`)) return true;
        const pid = RUN_NAME.exec(name)?.[1];
        return local && pid !== undefined && !processRunning(Number(pid));
      });
    // Several at once: each DROP DATABASE waits for a checkpoint, and one checkpoint serves all
    // waiting; but a few at a time, or a run's hundred databases take every connection the
    // server allows (53300 too_many_connections for anything else running).
    for (let i = 0; i < names.length; i += DROPS_AT_ONCE) {
      await Promise.all(
        names
          .slice(i, i + DROPS_AT_ONCE)
          .map((name) =>
            onPostgres(adminDatabase(), (one) => one.query(`drop database if exists ${name} with (force)`)),
          ),
      );
    }
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = `sb_r${process.pid}_${randomBytes(4).toString("hex")}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-template-"));
  const [sqlite, postgres] = await Promise.all([sqliteTemplate(dir), postgresTemplate(run)]);
  project.provide("databaseRun", run);
  project.provide("sqliteTemplate", sqlite);
  project.provide("postgresTemplate", postgres);
  return async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    if (postgres) await dropRunDatabases(run);
  };
}
