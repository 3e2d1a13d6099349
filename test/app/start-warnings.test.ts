// What a start warns about once (src/app/start-warnings.ts), through a real start on both engines:
// PROMOTIONAL_HEADER unset (the generic sender PROMOTIONAL, which real carriers drop), and
// DLT_CHAIN_REQUIRED off (sends without a declared PE-TM chain, which operators drop).
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Role } from "../../src/app/gateway.js";
import { startGateway } from "../../src/app/gateway.js";
import { systemClock } from "../../src/base/core/clock.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../helpers/engines.js";
import { testConfig } from "../helpers/gateway.js";
import { captureLogs, WARN } from "../helpers/log-capture.js";

describeEachEngine("start-up warnings", (engine) => {
  // The starts under test share the file's database; no gateway of the file's own is needed.
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  async function warningsOf(env: Record<string, string>, roles: Role[]) {
    const logs = captureLogs();
    const started = await startGateway({
      config: testConfig(db, env),
      roles,
      clock: systemClock,
      store: db.store,
      logger: logs.logger,
      // The OpenAPI document is no warning's business: a quarter of a start's CPU, left to its first request.
      openApiAtStart: false,
    });
    await started.stop();
    return logs.lines.filter((line) => line.level === WARN).map((line) => line.msg);
  }
  /** A start with neither setting (api and worker): both tests read its warnings. */
  let defaults: Promise<string[]> | undefined;
  const defaultWarnings = () => {
    defaults ??= warningsOf({}, ["api", "worker"]);
    return defaults;
  };

  it("says once that PROMOTIONAL_HEADER is unset where the worker runs, and not once it is set", async () => {
    const unset = await defaultWarnings();
    expect(unset.filter((msg) => msg.startsWith("PROMOTIONAL_HEADER is unset"))).toHaveLength(1);
    expect((await warningsOf({}, ["api"])).some((msg) => msg.startsWith("PROMOTIONAL_HEADER"))).toBe(false);
    const set = await warningsOf({ PROMOTIONAL_HEADER: "512345" }, ["api", "worker"]);
    expect(set.some((msg) => msg.startsWith("PROMOTIONAL_HEADER"))).toBe(false);
  });

  it("says once that DLT_CHAIN_REQUIRED is off and not once it is on", async () => {
    const off = await defaultWarnings();
    expect(off.filter((msg) => msg.startsWith("DLT_CHAIN_REQUIRED is off"))).toHaveLength(1);
    expect(off.find((msg) => msg.startsWith("DLT_CHAIN_REQUIRED"))).toContain("set DLT_CHAIN_REQUIRED=1");
    const on = await warningsOf({ DLT_CHAIN_REQUIRED: "1" }, ["api"]);
    expect(on.some((msg) => msg.startsWith("DLT_CHAIN_REQUIRED"))).toBe(false);
  });

  it("refuses a PROMOTIONAL_HEADER that is not 6 digits", () => {
    for (const bad of ["12345", "1234567", "AB1234"]) {
      expect(() => testConfig(db, { PROMOTIONAL_HEADER: bad })).toThrow(/PROMOTIONAL_HEADER.*6 digits/);
    }
  });
});
