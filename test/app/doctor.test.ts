// `switchboard doctor` as an operator runs it (a real process) against a database with gateways
// running on it: one whose clock is 7 s ahead (its heartbeat says so), carriers that answer
// and one that does not, a pending migration, Redis reachable or not, a bad configuration.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { pageSizeCheck } from "../../src/app/doctor.js";
import { type Gateway, startGateway } from "../../src/app/gateway.js";
import { type Clock, systemClock } from "../../src/base/core/clock.js";
import { createLogger } from "../../src/base/runtime/logging.js";
import { PAGE_SIZE } from "../../src/base/store/sqlite-store.js";
import { FakeSmsc } from "../delivery/carriers/fake-smsc.js";
import { until } from "../domain/webhooks/receiver.js";
import { runCli } from "../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../helpers/engines.js";
import { testConfig } from "../helpers/gateway.js";
import { freePort } from "../helpers/throwaway.js";

interface Report {
  ok: boolean;
  checks: { name: string; status: "ok" | "warn" | "fail"; detail: string }[];
}

const REDIS = process.env.REDIS_TEST_URL;

describeEachEngine("switchboard doctor", (engine) => {
  let db: TestDatabase;
  let smsc: FakeSmsc;
  let dir: string;
  let carriersFile: string;
  const gateways: Gateway[] = [];

  async function doctor(env: Record<string, string> = {}): Promise<{ code: number | null; report: Report }> {
    const result = await runCli(
      ["doctor", "--json"],
      { DATABASE_URL: db.url, SWITCHBOARD_CARRIERS_FILE: carriersFile, ...env },
      { timeoutMs: 60_000 },
    );
    return { code: result.code, report: JSON.parse(result.stdout) as Report };
  }
  const check = (report: Report, name: string) => report.checks.find((c) => c.name === name);

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    smsc = new FakeSmsc();
    await smsc.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-doctor-"));
    carriersFile = path.join(dir, "carriers.json");
    const closed = await freePort();
    fs.writeFileSync(
      carriersFile,
      JSON.stringify({
        connectors: [
          { name: "alive", type: "smpp", host: "127.0.0.1", port: smsc.port, system_id: "x", password: "y" },
          { name: "dead", type: "smpp", host: "127.0.0.1", port: closed, system_id: "x", password: "y" },
        ],
      }),
    );
    // Two API processes on the database (in this process): one on time, one 7 s ahead.
    const ahead: Clock = { now: () => new Date(Date.now() + 7_000) };
    for (const clock of [systemClock, ahead]) {
      gateways.push(
        await startGateway({
          config: testConfig(db),
          roles: ["api"],
          clock,
          store: db.store,
          logger: createLogger({ logLevel: "silent" }),
          openApiAtStart: false,
        }),
      );
    }
    // Each process writes its first heartbeat just after it started: the doctor must see both.
    await until(async () => (await db.store.db.selectFrom("process_heartbeats").select("id").execute()).length === 2);
  }, 60_000);

  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop();
    await smsc?.stop();
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("lists the running processes and fails on one whose clock is 7 s off the database's", async () => {
    const { code, report } = await doctor();
    expect(code).toBe(1);
    expect(check(report, "configuration")?.status).toBe("ok");
    expect(check(report, "database")?.status).toBe("ok");
    expect(check(report, "migrations")).toMatchObject({ status: "ok", detail: expect.stringMatching(/none pending/) });
    if (engine === "postgres") {
      // Warned about exactly when the server runs without it (this machine's may).
      const { rows } = await sql<{ on: string }>`select current_setting('autovacuum') as on`.execute(db.store.db);
      expect(check(report, "autovacuum")).toMatchObject(
        rows[0]!.on === "on"
          ? { status: "ok" }
          : { status: "warn", detail: expect.stringMatching(/nothing vacuums them/) },
      );
      expect(check(report, "page size")).toBeUndefined();
    } else {
      expect(check(report, "autovacuum")).toBeUndefined();
      // The test database is a new one: the gateway's page size (decision 0136).
      expect(check(report, "page size")).toEqual({ name: "page size", status: "ok", detail: `${PAGE_SIZE} bytes` });
    }
    const processes = check(report, "processes");
    expect(processes?.status).toBe("fail");
    expect(processes?.detail).toMatch(/^2 api; largest clock skew \+[67]\d{3} ms/);
    expect(processes?.detail.split("\n")).toHaveLength(3);
    // No worker among them: messages would wait.
    expect(check(report, "workers")?.status).toBe("warn");
    expect(check(report, "carrier alive")).toMatchObject({ status: "ok", detail: expect.stringMatching(/accepts/) });
    expect(check(report, "carrier dead")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/ECONNREFUSED/),
    });

    // The skewed process stops: its heartbeat goes with it.
    await gateways.pop()?.stop();
    const after = await doctor();
    expect(check(after.report, "processes")).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/^1 api; largest clock skew [+−]\d+ ms/),
    });
  }, 120_000);

  it("warns of the DLT settings Indian operators' rules need, until they are set", async () => {
    const unset = check((await doctor()).report, "india");
    expect(unset?.status).toBe("warn");
    expect(unset?.detail.split("\n")).toEqual([
      expect.stringMatching(/^PROMOTIONAL_HEADER is unset: /),
      expect.stringMatching(/^DLT_CHAIN_REQUIRED is off: /),
      "DLT_TEMPLATES_ALL_ROUTES off: promotional SMS need a template only when a send names one",
    ]);
    const set = { PROMOTIONAL_HEADER: "123456", DLT_CHAIN_REQUIRED: "1", DLT_TEMPLATES_ALL_ROUTES: "1" };
    const { code, report } = await doctor(set);
    expect(check(report, "india")).toEqual({
      name: "india",
      status: "ok",
      detail:
        "PROMOTIONAL_HEADER 123456; DLT_CHAIN_REQUIRED on; DLT_TEMPLATES_ALL_ROUTES on: promotional SMS need an approved template too",
    });
    // A warning never fails the doctor: a gateway without Indian traffic needs none of them.
    expect(code === 0 || report.checks.some((c) => c.status === "fail")).toBe(true);
  }, 120_000);

  it("warns of a misspelt or unknown setting, with the one meant, and of an empty METRICS_TOKEN (decision 0181)", async () => {
    expect(check((await doctor()).report, "environment")).toEqual({
      name: "environment",
      status: "ok",
      detail: "every variable named like a setting is one",
    });
    const { report } = await doctor({
      METRIC_TOKEN: "x",
      REDIS_REQUIERD: "1",
      SWITCHBORD_PORT: "1",
      METRICS_TOKEN: "",
    });
    const environment = check(report, "environment");
    expect(environment?.status).toBe("warn");
    expect(environment?.detail.split("\n")).toEqual([
      expect.stringMatching(/^METRICS_TOKEN is set but empty, which counts as unset: \/metrics answers whoever/),
      expect.stringMatching(/^METRIC_TOKEN is not a setting: did you mean METRICS_TOKEN\?/),
      expect.stringMatching(/^REDIS_REQUIERD is not a setting: did you mean REDIS_REQUIRED\?/),
      expect.stringMatching(/^SWITCHBORD_PORT looks like a Switchboard setting .*did you mean PORT\?$/),
    ]);
  }, 120_000);

  it("warns about a SQLite database with pages of another size, and says how to rebuild it", () => {
    expect(pageSizeCheck(PAGE_SIZE)).toEqual(["ok", `${PAGE_SIZE} bytes`]);
    const [status, detail] = pageSizeCheck(4096);
    expect(status).toBe("warn");
    expect(detail).toContain(`pragma page_size = ${PAGE_SIZE}; vacuum`);
  });

  it("fails on a pending migration without running it", async () => {
    const last = await db.store.db
      .selectFrom("schema_migrations" as never)
      .select("name" as never)
      .orderBy("name" as never, "desc")
      .executeTakeFirstOrThrow();
    const name = (last as { name: string }).name;
    const saved = await db.store.db
      .selectFrom("schema_migrations" as never)
      .selectAll()
      .where("name" as never, "=", name as never)
      .executeTakeFirstOrThrow();
    await db.store.db
      .deleteFrom("schema_migrations" as never)
      .where("name" as never, "=", name as never)
      .execute();
    try {
      const { code, report } = await doctor();
      expect(code).toBe(1);
      expect(check(report, "migrations")).toMatchObject({
        status: "fail",
        detail: expect.stringContaining(`1 pending (${name})`),
      });
      // Doctor changes nothing: the migration is still missing.
      const still = await db.store.db
        .selectFrom("schema_migrations" as never)
        .selectAll()
        .where("name" as never, "=", name as never)
        .execute();
      expect(still).toEqual([]);
    } finally {
      await db.store.db
        .insertInto("schema_migrations" as never)
        .values(saved as never)
        .execute();
    }
  }, 60_000);

  it("checks Redis: unreachable warns, or fails when required", async () => {
    const closed = await freePort();
    const optional = await doctor({ REDIS_URL: `redis://127.0.0.1:${closed}` });
    expect(check(optional.report, "redis")).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/optional/),
    });
    const required = await doctor({ REDIS_URL: `redis://127.0.0.1:${closed}`, REDIS_REQUIRED: "1" });
    expect(check(required.report, "redis")?.status).toBe("fail");
    expect(required.code).toBe(1);
    if (REDIS) {
      const reachable = await doctor({ REDIS_URL: REDIS, REDIS_REQUIRED: "1" });
      expect(check(reachable.report, "redis")).toMatchObject({
        status: "ok",
        detail: expect.stringMatching(/answers PING in \d+ ms; this machine is [+−]\d+ ms from its clock/),
      });
    }
  }, 60_000);

  it("reports a bad configuration and an unreachable database, in words", async () => {
    const bad = await runCli(["doctor"], { DATABASE_URL: "mysql://x" });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^fail {2}configuration {2}DATABASE_URL must start with sqlite: or postgres:\/\//);
    const closed = await freePort();
    const away = await runCli(["doctor"], { DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/none` });
    expect(away.code).toBe(1);
    expect(away.stdout).toMatch(/^fail {2}database {7}cannot reach the database: .*ECONNREFUSED/m);
  }, 60_000);
});
