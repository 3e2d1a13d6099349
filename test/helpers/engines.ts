// Gives every test file a throwaway database on each engine: a temp SQLite file, and a
// PostgreSQL schema of its own. PostgreSQL suites are skipped (and say so) when the server
// is unreachable, unless SWITCHBOARD_REQUIRE_POSTGRES=1 makes them mandatory (CI sets it).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { describe } from "vitest";
import type { DatabaseTarget } from "../../src/base/runtime/config.js";
import type { Engine } from "../../src/base/store/engine.js";
import { openStore, type Store } from "../../src/base/store/store.js";

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
  drop(): Promise<void>;
}

export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  const name = `sb_t_${randomBytes(6).toString("hex")}`;
  if (engine === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-test-"));
    const file = path.join(dir, `${name}.db`);
    const target: DatabaseTarget = { engine: "sqlite", file };
    const store = await openStore(target, { sqliteSynchronous: "NORMAL" });
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
    drop: async () => {
      await store.close().catch(() => undefined);
      await dropSchema(name);
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

/** Declares a suite once per engine; the callback receives the engine name. */
export function describeEachEngine(title: string, body: (engine: Engine) => void): void {
  describe(`${title} [sqlite]`, () => body("sqlite"));
  if (postgresAvailable) {
    describe(`${title} [postgres]`, () => body("postgres"));
  } else {
    if (!warned) {
      warned = true;
      console.warn(`PostgreSQL unreachable at ${TEST_POSTGRES_URL} (${pgProblem}): PostgreSQL suites skipped.`);
    }
    describe.skip(`${title} [postgres] (skipped: PostgreSQL unreachable)`, () => body("postgres"));
  }
}
