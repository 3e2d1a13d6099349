// Gives every test file a throwaway database on each engine: a temp SQLite file, and a
// PostgreSQL database with a schema of its own, each a copy of the run's migrated template
// (global-setup.ts; without it, as when a file is run by another config, each is migrated).
// PostgreSQL suites are skipped (and say so) when the server is unreachable, unless
// SWITCHBOARD_REQUIRE_POSTGRES=1 makes them mandatory (CI sets it).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, inject } from "vitest";
import type { DatabaseTarget } from "../../src/base/runtime/config.js";
import type { Engine } from "../../src/base/store/engine.js";
import { openStore, type Store } from "../../src/base/store/store.js";
import { TEMPLATE_SCHEMA } from "./global-setup.js";

export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const required = process.env.SWITCHBOARD_REQUIRE_POSTGRES === "1";

async function probePostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const pgProblem = await probePostgres();
if (pgProblem && required) {
  throw new Error(`SWITCHBOARD_REQUIRE_POSTGRES=1 but PostgreSQL at ${TEST_POSTGRES_URL} is unreachable: ${pgProblem}`);
}
export const postgresAvailable = pgProblem === undefined;

export interface TestDatabase {
  engine: Engine;
  store: Store;
  /** The target and options a separate process needs to reach the same database. */
  target: DatabaseTarget;
  /** DATABASE_URL for a child process (PostgreSQL: with the schema in `options`). */
  url: string;
  schema?: string;
  /** PostgreSQL: the URL of the database `schema` is in, without a search path. */
  postgresUrl?: string;
  drop(): Promise<void>;
}

/** What global-setup.ts made for this run; nothing when it did not run. */
function templates(): { run: string; sqlite: string; postgres: string } {
  try {
    return { run: inject("databaseRun"), sqlite: inject("sqliteTemplate"), postgres: inject("postgresTemplate") };
  } catch {
    return { run: "", sqlite: "", postgres: "" };
  }
}

export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  const template = templates();
  if (engine === "postgres" && template.postgres) return copyOfPostgresTemplate(template.run, template.postgres);
  const name = `sb_t_${randomBytes(6).toString("hex")}`;
  if (engine === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-test-"));
    const file = path.join(dir, `${name}.db`);
    if (template.sqlite) fs.copyFileSync(template.sqlite, file);
    const target: DatabaseTarget = { engine: "sqlite", file };
    const store = await openStore(target, { sqliteSynchronous: "NORMAL" });
    // A copy of the template is at the latest migration: one read.
    await store.migrate();
    return {
      engine,
      store,
      target,
      url: `sqlite:${file}`,
      drop: async () => {
        await store.close().catch(() => undefined);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${name}`);
  await admin.end();
  const target: DatabaseTarget = { engine: "postgres", url: TEST_POSTGRES_URL };
  const store = await openStore(target, { pgSchema: name });
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    await dropSchema(name);
    throw error;
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set("options", `-c search_path=${name}`);
  return {
    engine,
    store,
    target,
    url: url.toString(),
    schema: name,
    postgresUrl: TEST_POSTGRES_URL,
    drop: async () => {
      await store.close().catch(() => undefined);
      await dropSchema(name);
    },
  };
}

/**
 * A database of this test file's own, copied from the run's template, its schema renamed to
 * the database's name (LISTEN channels and search paths stay distinct per file, as when each
 * file had a schema). It is dropped with the run's others at the end (global-setup.ts).
 *
 * Its sessions commit without waiting for the WAL's fsync (synchronous_commit off, set on the
 * database, so the gateway processes a test starts on it do too): what the SQLite test stores
 * are with synchronous=NORMAL. A commit is still durable when a gateway process is killed, as
 * the crash tests need; only a crash of the PostgreSQL server could lose the last commits, and
 * the tests that crash one start a throwaway server of their own (throwaway.ts, fsync off).
 */
async function copyOfPostgresTemplate(run: string, template: string): Promise<TestDatabase> {
  const name = `${run}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${template}`);
    await admin.query(`alter database ${name} set synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  const database = new URL(TEST_POSTGRES_URL);
  database.pathname = `/${name}`;
  const owner = new pg.Client({ connectionString: database.toString() });
  await owner.connect();
  try {
    await owner.query(`alter schema ${TEMPLATE_SCHEMA} rename to ${name}`);
  } finally {
    await owner.end();
  }
  const target: DatabaseTarget = { engine: "postgres", url: database.toString() };
  const store = await openStore(target, { pgSchema: name });
  await store.migrate();
  const url = new URL(database);
  url.searchParams.set("options", `-c search_path=${name}`);
  return {
    engine: "postgres",
    store,
    target,
    url: url.toString(),
    schema: name,
    postgresUrl: database.toString(),
    drop: async () => {
      await store.close().catch(() => undefined);
    },
  };
}

async function dropSchema(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  await client.query(`drop schema if exists ${name} cascade`);
  await client.end();
}

let warned = false;

const inTurn = process.env.TEST_ENGINES_IN_TURN === "1";

/** Declares a suite once per engine; the callback receives the engine name. */
export function describeEachEngine(title: string, body: (engine: Engine) => void): void {
  declareEngines(title, body, false);
}

/**
 * describeEachEngine, the two engines' suites running at the same time, each one's tests in
 * order (vitest runs concurrent sibling suites together): for a file whose time is mostly
 * waits (time-outs waited out, processes, the database, a browser) and whose suites share no
 * state but what each declares inside the body: no fake timers, no process.env, no fixed
 * ports, no heap measured (the other suite's would count), no module-level variable the
 * tests write. TEST_ENGINES_IN_TURN=1 runs them one after the other (to compare, or to read
 * one engine's failure alone).
 */
export function describeEnginesTogether(title: string, body: (engine: Engine) => void): void {
  declareEngines(title, body, !inTurn);
}

function declareEngines(title: string, body: (engine: Engine) => void, together: boolean): void {
  const declared = [describe(`${title} [sqlite]`, () => body("sqlite"))];
  if (postgresAvailable) {
    declared.push(describe(`${title} [postgres]`, () => body("postgres")));
  } else {
    if (!warned) {
      warned = true;
      console.warn(`PostgreSQL unreachable at ${TEST_POSTGRES_URL} (${pgProblem}): PostgreSQL suites skipped.`);
    }
    describe.skip(`${title} [postgres] (skipped: PostgreSQL unreachable)`, () => body("postgres"));
  }
  // Only the suites: their tests keep the sequential default.
  if (together) for (const { suite } of declared) if (suite) suite.concurrent = true;
}
