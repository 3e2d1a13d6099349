// Several processes starting on a new SQLite file at once (a `start` and an operator's first
// command, say) each migrate it: every one succeeds, once, and the file holds every migration.
// Kysely's SQLite adapter takes no lock, so before the migrations ran in one `begin immediate`
// transaction the second process failed on a column the first had just added (the race audit's
// D2: "Database migration 0056_key_makers failed: duplicate column name: created_by").
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { MIGRATION_NAMES } from "../../../src/base/store/migrations/index.js";
import { BIN } from "../../helpers/cli.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-migrate-race-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function migrate(file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, "migrate"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.tmpdir(), DATABASE_URL: `sqlite:${file}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    child.on("close", (code) => resolve({ code, output }));
  });
}

it("migrates a new file from three processes at once, each succeeding", async () => {
  for (const round of [1, 2, 3]) {
    const file = path.join(dir, `new-${round}.db`);
    const results = await Promise.all([migrate(file), migrate(file), migrate(file)]);
    expect(
      results.map((r) => r.code),
      results.map((r) => r.output).join("\n"),
    ).toEqual([0, 0, 0]);
    const db = new Database(file, { readonly: true });
    try {
      const names = db.prepare("select name from schema_migrations order by name").pluck().all();
      expect(names).toEqual([...MIGRATION_NAMES].sort());
    } finally {
      db.close();
    }
  }
}, 120_000);
