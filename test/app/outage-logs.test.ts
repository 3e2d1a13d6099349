// What an outage writes to the log: during a PostgreSQL outage (a TCP proxy in front of the
// shared server, cut: the gateway sees ECONNREFUSED), each identical failure is logged once with
// its stack and then counted ("request failed: 29 more since …"), and /readyz answering 503 is a
// debug line as README says. Before: one error line with a stack per failed request and per
// loop round (434 in the audit's 22 s PostgreSQL restart).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway } from "../../src/app/gateway.js";
import { systemClock } from "../../src/base/core/clock.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../helpers/engines.js";
import { testConfig } from "../helpers/gateway.js";
import { captureLogs } from "../helpers/log-capture.js";
import { TcpProxy } from "../helpers/tcp-proxy.js";

const required = process.env.SWITCHBOARD_REQUIRE_POSTGRES === "1";
if (required && !postgresAvailable) throw new Error("SWITCHBOARD_REQUIRE_POSTGRES=1 but PostgreSQL is not reachable");
const suite = postgresAvailable ? describe : describe.skip;

const ERROR = 50;
const REQUESTS = 30;

suite("the log during a PostgreSQL outage", () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    const target = new URL(db.url);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
  });
  afterAll(async () => {
    await proxy?.cut();
    await db?.drop();
  });

  it("logs each identical failure once with its stack, then its count; /readyz 503 at debug", async () => {
    const proxied = new URL(db.url);
    proxied.host = `127.0.0.1:${proxy.port}`;
    const logs = captureLogs("debug");
    const gateway = await startGateway({
      config: testConfig(db, { DATABASE_URL: proxied.toString(), SWITCHBOARD_THREADS: "1" }),
      roles: ["api", "worker"],
      clock: systemClock,
      logger: logs.logger,
      openApiAtStart: false,
    });
    const url = gateway.url!;
    const balance = () => fetch(`${url}/api/v2/balance`, { headers: { authorization: "Bearer sb_nosuchkey" } });
    expect((await balance()).status).toBe(401);
    const before = logs.lines.length;

    await proxy.cut();
    const statuses: number[] = [];
    for (let n = 0; n < REQUESTS; n++) statuses.push((await balance()).status);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(statuses.filter((status) => status === 503).length).toBe(REQUESTS);
    await gateway.stop();

    const outage = logs.lines.slice(before);
    const failed = outage.filter((line) => line.msg === "request failed");
    // The first in full, with its stack; the other identical ones only counted.
    const byError = new Map<string, number>();
    for (const line of failed) {
      const err = (line as { err?: { message?: string; stack?: string } }).err;
      expect(err?.stack).toBeDefined();
      byError.set(err!.message!, (byError.get(err!.message!) ?? 0) + 1);
    }
    for (const count of byError.values()) expect(count).toBe(1);
    const counted = outage.filter((line) => line.msg.startsWith("request failed: "));
    const repeated = counted.reduce((sum, line) => sum + Number((line as { repeated?: number }).repeated), 0);
    expect(failed.length + repeated).toBe(REQUESTS);
    expect(counted[0]?.msg).toMatch(/^request failed: \d+ more since \d{4}-\d\d-\d\dT[\d:.]+Z \(.+\)$/);
    // Each answered 503 is still its own request line (at error, as any 5xx of the API).
    expect(outage.filter((line) => line.http?.route === "/api/v2/balance" && line.http.status === 503)).toHaveLength(
      REQUESTS,
    );
    // /readyz answering 503 is a debug line (README: probes at debug).
    const probes = outage.filter((line) => line.http?.route === "/readyz");
    expect(probes.map((line) => [line.level, line.http?.status])).toEqual([[20, 503]]);
    // No error with a stack is written twice for the same failure, whatever loop it came from.
    const stacks = new Map<string, number>();
    for (const line of outage.filter((line) => line.level >= ERROR)) {
      const err = (line as { err?: { message?: string } }).err;
      if (!err) continue;
      const key = `${line.msg}\u0000${err.message}`;
      stacks.set(key, (stacks.get(key) ?? 0) + 1);
    }
    expect([...stacks].filter(([, count]) => count > 1)).toEqual([]);
  }, 60_000);
});
