// A database migrated by a newer Switchboard (decision 0180): `start`, `api`, `worker` and
// `migrate` of this version refuse it, exit 1 and name the migrations they do not know, and
// change nothing; `doctor` says the same. A process already running when the newer version
// migrates is not stopped (the rolling upgrade): only a start is refused.
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { MIGRATION_NAMES } from "../../../src/base/store/migrations/index.js";
import { runCli, type ServerProcess, startServer } from "../../helpers/cli.js";
import { createTestDatabase, describeEnginesTogether, type TestDatabase } from "../../helpers/engines.js";

// Each step spawns a process (a second or more of Node start-up on two busy cores).
vi.setConfig({ testTimeout: 120_000 });

const FUTURE = ["9990_from_a_newer_version", "9991_and_another"];

describeEnginesTogether("a database migrated by a newer version", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let running: ServerProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
  });
  afterAll(async () => {
    await running?.stop("SIGKILL");
    await db.drop();
  });

  const applied = async () =>
    (await sql<{ name: string }>`select name from schema_migrations`.execute(db.store.db)).rows
      .map((row) => row.name)
      .sort();

  it("leaves a process started before the newer migration running, and refuses every start after it", async () => {
    // The old version's process, started while the database was still its own.
    running = await startServer(engine === "sqlite" ? "start" : "api", env);
    // The newer version migrates (two migrations this one has never heard of).
    for (const name of FUTURE) {
      await sql`insert into schema_migrations (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(
        db.store.db,
      );
    }
    const before = await applied();
    expect(before).toEqual([...MIGRATION_NAMES, ...FUTURE].sort());

    // Already running: it goes on answering.
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);

    const commands = [["migrate"], ["start"], ["api"], ...(engine === "postgres" ? [["worker"]] : [])];
    for (const command of commands) {
      const result = await runCli(command, { ...env, PORT: "0", HOST: "127.0.0.1" }, { timeoutMs: 60_000 });
      expect(result.code, `${command[0]}: ${result.stderr}`).toBe(1);
      expect(result.stdout, command[0]).not.toContain("migrations applied");
      expect(result.stdout, command[0]).not.toContain("switchboard running");
      // One line, no stack trace: what it found, and what to do.
      expect(result.stderr.trim().split("\n"), command[0]).toHaveLength(1);
      expect(result.stderr, command[0]).toContain(
        "This database was migrated by a newer Switchboard: it has 2 migration(s) this version does not know (9990_from_a_newer_version, 9991_and_another). Upgrade Switchboard on this machine",
      );
    }
    // Nothing was changed by the refusals.
    expect(await applied()).toEqual(before);

    // Doctor fails its migrations check with the same words.
    const doctor = await runCli(["doctor", "--json"], env, { timeoutMs: 60_000 });
    expect(doctor.code).toBe(1);
    const check = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === "migrations");
    expect(check).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("it has 2 migration(s) this version does not know"),
    });

    // The process that was running still is.
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
  });
});
