// /readyz of real `switchboard api` processes while their PostgreSQL and Redis really stop and
// start again: both are throwaway servers of this file (never the shared ones). With
// REDIS_REQUIRED the process goes unready while Redis is away; without, it stays ready and
// says Redis is down; both go unready while the database is away, and ready again after.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoKey, postDemoSms, type ServerProcess, startServer } from "../helpers/cli.js";
import {
  postgresServerAvailable,
  redisServerAvailable,
  startThrowawayPostgres,
  startThrowawayRedis,
  type ThrowawayPostgres,
  type ThrowawayRedis,
} from "../helpers/throwaway.js";

const required = process.env.SWITCHBOARD_REQUIRE_POSTGRES === "1";
const available = postgresServerAvailable() && redisServerAvailable();
if (required && !available) throw new Error("SWITCHBOARD_REQUIRE_POSTGRES=1 but initdb or redis-server is missing");
const suite = available ? describe : describe.skip;

interface Readiness {
  status: number;
  body: { status: string; database: string; redis?: string };
}

async function readyz(server: ServerProcess): Promise<Readiness> {
  const response = await fetch(`${server.url}/readyz`);
  return { status: response.status, body: (await response.json()) as Readiness["body"] };
}

async function waitForReadiness(server: ServerProcess, want: Partial<Readiness["body"]>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last: Readiness | undefined;
  while (Date.now() < deadline) {
    last = await readyz(server);
    if (Object.entries(want).every(([key, value]) => last?.body[key as keyof Readiness["body"]] === value)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`readiness never became ${JSON.stringify(want)}; last ${JSON.stringify(last)}`);
}

async function send(server: ServerProcess, key: string): Promise<number> {
  const response = await postDemoSms(server.url, key);
  await response.arrayBuffer();
  return response.status;
}

suite("readiness follows PostgreSQL and Redis", () => {
  let postgres: ThrowawayPostgres;
  let redis: ThrowawayRedis;
  let strict: ServerProcess;
  let lenient: ServerProcess;

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis()]);
    const env = { DATABASE_URL: postgres.url, REDIS_URL: redis.url };
    // The first start migrates and seeds; the second finds both done.
    strict = await startServer("api", { ...env, REDIS_REQUIRED: "1" }, { timeoutMs: 60_000 });
    lenient = await startServer("api", env, { timeoutMs: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await Promise.all([strict?.stop("SIGKILL"), lenient?.stop("SIGKILL")]);
    await Promise.all([postgres?.destroy(), redis?.destroy()]);
  });

  it("goes unready while a required Redis is away, and ready again when it is back", async () => {
    expect(await readyz(strict)).toEqual({ status: 200, body: { status: "ready", database: "ok", redis: "ok" } });
    expect(await readyz(lenient)).toEqual({ status: 200, body: { status: "ready", database: "ok", redis: "ok" } });

    await redis.stop();
    expect(await waitForReadiness(strict, { redis: "down" })).toEqual({
      status: 503,
      body: { status: "not_ready", database: "ok", redis: "down" },
    });
    // Optional Redis: still in service, rate limits counted in the process meanwhile.
    expect(await waitForReadiness(lenient, { redis: "down" })).toEqual({
      status: 200,
      body: { status: "ready", database: "ok", redis: "down" },
    });
    expect(await send(lenient, demoKey(strict))).toBe(200);

    await redis.start();
    expect((await waitForReadiness(strict, { status: "ready" })).status).toBe(200);
    expect((await waitForReadiness(lenient, { redis: "ok" })).status).toBe(200);
  }, 60_000);

  it("goes unready while PostgreSQL is stopped, and ready again after it restarts", async () => {
    const key = demoKey(strict);
    expect(await send(strict, key)).toBe(200);

    await postgres.stop("fast");
    for (const server of [strict, lenient]) {
      expect(await waitForReadiness(server, { database: "down" })).toEqual({
        status: 503,
        body: { status: "not_ready", database: "down", redis: "ok" },
      });
    }
    // A send meanwhile is refused as a temporary failure the client may retry, never stored later.
    expect(await send(strict, key)).toBe(503);

    await postgres.start();
    for (const server of [strict, lenient]) {
      expect(await waitForReadiness(server, { status: "ready" })).toEqual({
        status: 200,
        body: { status: "ready", database: "ok", redis: "ok" },
      });
    }
    expect(await send(strict, key)).toBe(200);
  }, 90_000);
});
