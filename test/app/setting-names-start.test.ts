// A real `switchboard start` with a misspelt setting, an unknown SWITCHBOARD_ name and an empty
// METRICS_TOKEN: it starts, and says each once, at warn, before "switchboard running" (decision
// 0181). The test suite's own variables and the carriers file's ${NAME}s are not warned of.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { type ServerProcess, startServer } from "../helpers/cli.js";
import { createTestDatabase, describeEnginesTogether, type TestDatabase } from "../helpers/engines.js";

describeEnginesTogether("start and the names of settings", (engine) => {
  let db: TestDatabase | undefined;
  let dir: string;
  let server: ServerProcess | undefined;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-names-"));
  });
  afterEach(async () => {
    await server?.stop("SIGKILL");
    server = undefined;
    await db?.drop();
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("warns once of each misspelt or unknown name and of an empty METRICS_TOKEN, and still starts", async () => {
    db = await createTestDatabase(engine);
    const carriers = path.join(dir, `carriers-${engine}.json`);
    // A connector whose password comes from SMPP_PASSWORD: the gateway reads it, so no warning.
    fs.writeFileSync(
      carriers,
      JSON.stringify({
        connectors: [
          {
            name: "c1",
            type: "smpp",
            host: "127.0.0.1",
            port: 9,
            system_id: "u",
            password: ["$", "{SMPP_PASSWORD}"].join(""),
          },
        ],
      }),
    );
    const running = await startServer(
      "start",
      {
        DATABASE_URL: db.url,
        SWITCHBOARD_CARRIERS_FILE: carriers,
        SMPP_PASSWORD: "s3cret",
        METRIC_TOKEN: "x",
        SWITCHBORD_PORT: "1",
        METRICS_TOKEN: "",
        TEST_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test",
        SWITCHBOARD_REQUIRE_POSTGRES: "1",
        REDIS_TEST_URL: "redis://127.0.0.1:6379",
      },
      { timeoutMs: 60_000 },
    );
    server = running;
    const lines = running
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    const warned = lines.filter((line) => line.level === 40).map((line) => line.msg);
    const about = (name: string) => warned.filter((msg) => msg.startsWith(`${name} `));
    expect(about("METRIC_TOKEN")).toEqual([
      "METRIC_TOKEN is not a setting: did you mean METRICS_TOKEN? It is ignored, and METRICS_TOKEN keeps its value",
    ]);
    expect(about("SWITCHBORD_PORT")).toHaveLength(1);
    expect(about("METRICS_TOKEN")).toEqual([
      "METRICS_TOKEN is set but empty, which counts as unset: /metrics answers whoever reaches the HTTP port. Give it a value, or remove the line",
    ]);
    for (const name of ["SMPP_PASSWORD", "TEST_DATABASE_URL", "SWITCHBOARD_REQUIRE_POSTGRES", "REDIS_TEST_URL"]) {
      expect(warned.filter((msg) => msg.includes(name))).toEqual([]);
    }
    const runningAt = lines.findIndex((line) => line.msg === "switchboard running");
    expect(lines.findIndex((line) => line.msg.startsWith("METRIC_TOKEN"))).toBeLessThan(runningAt);
    // It started, and /metrics is indeed open.
    expect((await fetch(`${running.url}/metrics`)).status).toBe(200);
    expect(await running.stop("SIGTERM")).toBe(0);
    server = undefined;
  }, 120_000);
});
