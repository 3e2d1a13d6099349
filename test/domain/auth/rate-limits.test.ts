import { randomBytes } from "node:crypto";
import { createClient } from "redis";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger, type Gateway, startGateway } from "../../../src/app/gateway.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import {
  buildAccount,
  call,
  type JsonResponse,
  type TestGateway,
  testConfig,
  useTestGateway,
} from "../../helpers/gateway.js";

const REDIS_TEST_URL = process.env.REDIS_TEST_URL ?? "redis://127.0.0.1:6379";
const redisRequired = process.env.SWITCHBOARD_REQUIRE_POSTGRES === "1";
/** This file's own Redis keys, so parallel test files (and runs) never share a counter. */
const REDIS_PREFIX = `sb_test_rl_${randomBytes(6).toString("hex")}`;

async function probeRedis(): Promise<string | undefined> {
  const client = createClient({ url: REDIS_TEST_URL, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    if (client.isOpen) await client.quit().catch(() => undefined);
  }
}

const redisProblem = await probeRedis();
if (redisProblem && redisRequired) {
  throw new Error(`SWITCHBOARD_REQUIRE_POSTGRES=1 but Redis at ${REDIS_TEST_URL} is unreachable: ${redisProblem}`);
}
if (redisProblem)
  console.warn(`Redis unreachable at ${REDIS_TEST_URL} (${redisProblem}): Redis rate-limit tests skipped.`);

/** A key of the account with the given rate limit, made through the operator API. */
async function keyWithLimit(t: TestGateway, operatorKey: string, username: string, rateLimit?: number) {
  const response = await call(t, "POST", `/admin/api/accounts/${username}/keys`, {
    headers: { authorization: `Bearer ${operatorKey}` },
    json: rateLimit === undefined ? {} : { rate_limit: rateLimit },
  });
  expect(response.status).toBe(201);
  return { id: response.body.data.id as number, key: response.body.data.api_key as string };
}

function balance(t: TestGateway, key: string): Promise<JsonResponse> {
  return call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": key } });
}

function expectRateHeaders(response: JsonResponse, limit: number, remaining: number): void {
  expect(response.headers.get("x-ratelimit-limit")).toBe(String(limit));
  expect(response.headers.get("x-ratelimit-remaining")).toBe(String(remaining));
  const reset = Number(response.headers.get("x-ratelimit-reset"));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
}

function expectRefused(response: JsonResponse, limit: number): void {
  expect(response.status).toBe(429);
  expect(response.body).toMatchObject({ success: false, error: { code: "rate_limited" } });
  expect(response.body.error.request_id).toBeTruthy();
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(response.body.error.retry_after).toBe(retryAfter);
  expectRateHeaders(response, limit, 0);
}

describeEachEngine("v2 rate limits per API key", (engine) => {
  const gateway = useTestGateway(engine);

  it("answers 3 requests of a 3/min key, then 429 with Retry-After and X-RateLimit-* in the v2 envelope", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const { key } = await keyWithLimit(t, operator.apiKey, account.username, 3);
    for (let i = 0; i < 3; i += 1) {
      const response = await balance(t, key);
      expect(response.status).toBe(200);
      expectRateHeaders(response, 3, 2 - i);
    }
    expectRefused(await balance(t, key), 3);
    // The resource envelope too, and a send counts like any other request.
    const send = await call(t, "POST", "/api/v2/sms/send", {
      headers: { "x-api-key": key },
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "hello" },
    });
    expectRefused(send, 3);
    // The same account's other key (unlimited) is counted separately.
    const other = await balance(t, account.apiKey);
    expect(other.status).toBe(200);
  });

  it("counts each key of an account separately", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);
    const first = await keyWithLimit(t, operator.apiKey, account.username, 2);
    const second = await keyWithLimit(t, operator.apiKey, account.username, 2);
    expect((await balance(t, first.key)).status).toBe(200);
    expect((await balance(t, first.key)).status).toBe(200);
    expectRefused(await balance(t, first.key), 2);
    const fresh = await balance(t, second.key);
    expect(fresh.status).toBe(200);
    expectRateHeaders(fresh, 2, 1);
  });

  it("gives a key with limit 0 no limit and no X-RateLimit headers; a new key defaults to 60/min", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);
    const unlimited = await keyWithLimit(t, operator.apiKey, account.username, 0);
    for (let i = 0; i < 80; i += 1) {
      const response = await balance(t, unlimited.key);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBeNull();
      expect(response.headers.get("x-ratelimit-remaining")).toBeNull();
      expect(response.headers.get("x-ratelimit-reset")).toBeNull();
    }
    const byDefault = await keyWithLimit(t, operator.apiKey, account.username);
    expectRateHeaders(await balance(t, byDefault.key), 60, 59);
  });

  it("applies a limit changed through the operator API at once", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);
    const { id, key } = await keyWithLimit(t, operator.apiKey, account.username, 1);
    expect((await balance(t, key)).status).toBe(200);
    expectRefused(await balance(t, key), 1);

    const admin = { authorization: `Bearer ${operator.apiKey}` };
    const raised = await call(t, "PATCH", `/admin/api/keys/${id}`, { headers: admin, json: { rate_limit: 5 } });
    expect(raised.status).toBe(200);
    const after = await balance(t, key);
    expect(after.status).toBe(200);
    expect(after.headers.get("x-ratelimit-limit")).toBe("5");

    const lifted = await call(t, "PATCH", `/admin/api/keys/${id}`, { headers: admin, json: { rate_limit: 0 } });
    expect(lifted.status).toBe(200);
    for (let i = 0; i < 10; i += 1) {
      const response = await balance(t, key);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });
});

/** Gateways started by these tests, stopped (and their databases dropped) at the end. */
const gateways: Gateway[] = [];
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const g of gateways) await g.stop();
  for (const db of databases) await db.drop();
});

async function apiGateway(db: TestDatabase, redisUrl: string, prefix: string): Promise<TestGateway> {
  const config = testConfig(db, { REDIS_URL: redisUrl });
  const gateway = await startGateway({
    config,
    roles: ["api"],
    clock: systemClock,
    store: db.store,
    logger: createLogger({ logLevel: "silent" }),
    rateLimitKeyPrefix: prefix,
    openApiAtStart: false,
  });
  gateways.push(gateway);
  return { db, gateway, url: gateway.url, clock: systemClock, config };
}

describe.skipIf(redisProblem !== undefined)("v2 rate limits shared through Redis", () => {
  it("counts one key's requests to two gateways with the same REDIS_URL on one counter", async () => {
    const db = await createTestDatabase("sqlite");
    databases.push(db);
    const a = await apiGateway(db, REDIS_TEST_URL, `${REDIS_PREFIX}_shared`);
    const b = await apiGateway(db, REDIS_TEST_URL, `${REDIS_PREFIX}_shared`);
    const operator = await buildAccount(a, { role: "operator", sender: null });
    const account = await buildAccount(a);
    const { key } = await keyWithLimit(a, operator.apiKey, account.username, 4);
    const answers = [await balance(a, key), await balance(b, key), await balance(a, key), await balance(b, key)];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual(["3", "2", "1", "0"]);
    expectRefused(await balance(a, key), 4);
    expectRefused(await balance(b, key), 4);
  });
});

describe("v2 rate limits when Redis is unreachable", () => {
  it("fails open to counting in the process: no 500, the limit still holds per process", async () => {
    const db = await createTestDatabase("sqlite");
    databases.push(db);
    // Port 1 on loopback: connection refused at once.
    const t = await apiGateway(db, "redis://127.0.0.1:1", `${REDIS_PREFIX}_down`);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);
    const { key } = await keyWithLimit(t, operator.apiKey, account.username, 2);
    const first = await balance(t, key);
    expect(first.status).toBe(200);
    expectRateHeaders(first, 2, 1);
    expect((await balance(t, key)).status).toBe(200);
    expectRefused(await balance(t, key), 2);
  });
});
