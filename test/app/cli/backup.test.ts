// `switchboard backup <file>` on SQLite, taken while a `start` goes on accepting sends: the copy
// opens, has every migration, and holds every message acknowledged before the backup began,
// which were in the WAL only (a copy of the main file alone misses them). On PostgreSQL the
// command says to use pg_dump and writes nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { MIGRATION_NAMES } from "../../../src/base/store/migrations/index.js";
import { demoKey, postDemoSms, runCli, type ServerProcess, startServer } from "../../helpers/cli.js";
import { postgresAvailable, TEST_POSTGRES_URL } from "../../helpers/engines.js";

vi.setConfig({ testTimeout: 180_000 });

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-backup-"));
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The rows a query answers on a SQLite file, opened on its own: a -wal beside it only if there is one. */
function rows<T>(file: string, query: string): T[] {
  const db = new BetterSqlite3(file, { fileMustExist: true });
  try {
    return db.prepare(query).all() as T[];
  } finally {
    db.close();
  }
}

describe("switchboard backup [sqlite]", () => {
  it("copies the live database during sends, WAL included: the copy holds every acknowledged send", async () => {
    const live = path.join(dir, "live.db");
    const env = { DATABASE_URL: `sqlite:${live}`, SQLITE_SYNCHRONOUS: "NORMAL" };
    server = await startServer("start", env);
    const url = server.url;
    const key = demoKey(server);

    // Sends, one after another, for as long as `sending` is on: the ids acknowledged, in order.
    const acknowledged: string[] = [];
    let sending = true;
    let recipient = 9_000_000_000;
    let fiftyAnswered: () => void = () => undefined;
    const fifty = new Promise<void>((resolve) => {
      fiftyAnswered = resolve;
    });
    const sender = (async () => {
      while (sending) {
        const response = await postDemoSms(url, key, String(recipient++));
        const body = (await response.json()) as { data?: { message_id: string } };
        expect(response.status, JSON.stringify(body)).toBe(200);
        acknowledged.push(body.data!.message_id);
        if (acknowledged.length === 50) fiftyAnswered();
      }
    })();
    await fifty;

    // What is acknowledged now is committed; the sends go on through the backup.
    const before = [...acknowledged];
    // The naive copy of the main file alone: the recent commits are in the WAL, not in it.
    expect(fs.statSync(`${live}-wal`).size).toBeGreaterThan(0);
    const naive = path.join(dir, "naive.db");
    fs.copyFileSync(live, naive);
    const copy = path.join(dir, "copy.db");
    const result = await runCli(["backup", copy, "--json"], env, { timeoutMs: 60_000 });
    const duringBackup = acknowledged.length;
    sending = false;
    await sender;
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toMatchObject({
      file: copy,
      migrations: MIGRATION_NAMES.length,
      pending_migrations: 0,
      unknown_migrations: 0,
    });
    // Sends went on while it ran.
    expect(acknowledged.length).toBeGreaterThan(before.length);

    // The copy is one file (no -wal needed), opens, and is whole.
    expect(fs.existsSync(`${copy}-wal`)).toBe(false);
    expect(rows<{ quick_check: string }>(copy, "pragma quick_check")).toEqual([{ quick_check: "ok" }]);
    const migrations = rows<{ name: string }>(copy, "select name from schema_migrations").map((row) => row.name);
    expect(migrations.sort()).toEqual([...MIGRATION_NAMES].sort());
    // Every send acknowledged before the backup began is in it; nothing that was never
    // acknowledged (those answered during it may or may not be, as the copy's moment fell).
    const inCopy = new Set(rows<{ id: string }>(copy, "select id from messages").map((row) => row.id));
    expect(before.filter((id) => !inCopy.has(id))).toEqual([]);
    expect(inCopy.size).toBeGreaterThanOrEqual(before.length);
    expect(inCopy.size).toBeLessThanOrEqual(duringBackup + 1);
    expect([...inCopy].filter((id) => !acknowledged.includes(id))).toEqual([]);

    // The main file alone had fewer, or not even the table (a new database's migrations are in
    // the WAL too, as the audit found): what the backup took from the WAL.
    const naiveTables = rows<{ name: string }>(naive, "select name from sqlite_master where type = 'table'");
    const naiveMessages = naiveTables.some((table) => table.name === "messages")
      ? rows<{ n: number }>(naive, "select count(*) as n from messages")[0]!.n
      : 0;
    expect(naiveMessages).toBeLessThan(before.length);

    // A gateway starts on the copy as restored: its balance endpoint answers with the demo key.
    await server.stop("SIGTERM");
    server = undefined;
    const restored = path.join(dir, "restored.db");
    fs.copyFileSync(copy, restored);
    server = await startServer("start", { ...env, DATABASE_URL: `sqlite:${restored}` });
    const balance = await fetch(`${server.url}/api/v2/balance`, { headers: { authorization: `Bearer ${key}` } });
    expect(balance.status).toBe(200);

    // A second backup to the same name is refused, and the first is left as it was.
    const again = await runCli(["backup", copy], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
  });
});

describe.skipIf(!postgresAvailable)("switchboard backup [postgres]", () => {
  it("says to use pg_dump, exits 1 and writes nothing", async () => {
    const file = path.join(dir, "pg.dump");
    const result = await runCli(["backup", file], { DATABASE_URL: TEST_POSTGRES_URL });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('pg_dump -Fc -f switchboard.dump "$DATABASE_URL"');
    // The URL's password is not printed.
    expect(result.stderr).not.toContain(TEST_POSTGRES_URL);
    expect(fs.existsSync(file)).toBe(false);
  });
});
