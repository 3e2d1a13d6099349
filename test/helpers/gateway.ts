// Starts a real gateway (HTTP on an ephemeral 127.0.0.1 port) on a throwaway database, and
// builds accounts for tests. Every test file gets its own database.
import type { Logger } from "pino";
import { afterAll, beforeAll } from "vitest";
import { createAccountWithKey } from "../../src/app/admin/index.js";
import { createLogger, type Gateway, type Role, startGateway } from "../../src/app/gateway.js";
import { type Clock, systemClock } from "../../src/base/core/clock.js";
import type { Wallet } from "../../src/base/core/credits.js";
import { type Config, loadConfig } from "../../src/base/runtime/config.js";
import { createMetrics } from "../../src/base/runtime/metrics.js";
import type { Engine } from "../../src/base/store/engine.js";
import type { Store } from "../../src/base/store/store.js";
import type { DispatcherOptions } from "../../src/delivery/dispatch/dispatcher.js";
import { type Connector, Dispatcher, Router } from "../../src/delivery/dispatch/index.js";
import { addSenderId } from "../../src/domain/accounts/index.js";
import { cliActor } from "../../src/domain/audit/index.js";
import type { WebhookOutbox } from "../../src/domain/webhooks/outbox.js";
import { CHEAP_PASSWORD_PREFIX } from "./cheap-hashes.js";
import { createTestDatabase, type TestDatabase } from "./engines.js";

export interface TestGateway {
  db: TestDatabase;
  gateway: Gateway;
  url: string;
  clock: Clock;
  config: Config;
}

/**
 * A dispatcher of `connector` alone, on the test gateway's database and clock (or `deps.store`),
 * logging nothing, with its own metrics: for tests that start dispatching themselves (a gateway
 * with the `api` role only) or hand it a batch. Batches of 100, polls every 50 ms, 3 attempts,
 * unless `options` says otherwise.
 */
export function testDispatcher(
  t: TestGateway,
  connector: Connector,
  options: Partial<DispatcherOptions> = {},
  deps: { store?: Store; webhooks?: WebhookOutbox } = {},
): Dispatcher {
  return new Dispatcher(
    {
      store: deps.store ?? t.db.store,
      clock: t.clock,
      logger: createLogger({ logLevel: "silent" }),
      metrics: createMetrics({ defaultMetrics: false }),
      ...(deps.webhooks ? { webhooks: deps.webhooks } : {}),
    },
    new Router([connector]),
    { batchSize: 100, idleMs: 50, maxAttempts: 3, ...options },
  );
}

export function testConfig(db: TestDatabase, env: Record<string, string> = {}): Config {
  return loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    DATABASE_URL: db.url,
    // The SMPP server listens only in the tests that ask for it (SMPP_SERVER_PORT=auto).
    SMPP_SERVER_PORT: "0",
    // Tests send promotional SMS at every hour of the day: never held for the promotional hours
    // but in test/channels/sms/promo-hours.test.ts, which sets its window.
    PROMO_HOURS: "00:00-24:00",
    // Operators' console logins need a second factor by default; the tests of other things sign
    // in with a password only, and the two-factor tests set it back to required.
    TWO_FACTOR_OPERATORS: "optional",
    ...env,
  });
}

export async function startTestGateway(
  engine: Engine,
  options: {
    clock?: Clock;
    env?: Record<string, string>;
    roles?: Role[];
    logger?: Logger;
    /** The built console's directory, instead of dist/web. */
    consoleDir?: string;
  } = {},
): Promise<TestGateway> {
  const db = await createTestDatabase(engine);
  const config = testConfig(db, options.env);
  const clock = options.clock ?? systemClock;
  const gateway = await startGateway({
    config,
    roles: options.roles ?? ["api", "worker"],
    clock,
    store: db.store,
    logger: options.logger ?? createLogger({ logLevel: "silent" }),
    checkAnswers: true,
    // The OpenAPI document is built when a test asks for it (openapi.test.ts): a quarter of a start's CPU.
    openApiAtStart: false,
    ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
  });
  return { db, gateway, url: gateway.url ?? "", clock, config };
}

export type TestGatewayOptions = NonNullable<Parameters<typeof startTestGateway>[1]>;

/**
 * A gateway for the whole test file: started before the first test, stopped and dropped after the
 * last. `options` may be a function, read when the gateway starts (after the file's earlier
 * beforeAll hooks: a fake server's URL).
 */
export function useTestGateway(
  engine: Engine,
  options: TestGatewayOptions | (() => TestGatewayOptions) = {},
): () => TestGateway {
  let current: TestGateway | undefined;
  beforeAll(async () => {
    current = await startTestGateway(engine, typeof options === "function" ? options() : options);
  });
  afterAll(async () => {
    await current?.gateway.stop();
    await current?.db.drop();
  });
  return () => {
    if (!current) throw new Error("the test gateway is not running");
    return current;
  };
}

let counter = 0;

export interface TestAccount {
  id: number;
  username: string;
  password: string;
  apiKey: string;
}

/** buildAccount(): a funded customer account with an API key (unlimited rate) and an approved sender ID. */
export async function buildAccount(
  t: TestGateway,
  options: {
    credits?: Partial<Record<Wallet, number>>;
    sender?: string | null;
    role?: "customer" | "operator";
    /** DLT scrubbing is on for real accounts; tests of other things turn it off unless they ask. */
    dltScrubbing?: boolean;
    /**
     * The account's password. Unless given, a random one hashed at argon2's least cost
     * (test/helpers/cheap-hashes.ts); a test that times or races the check gives its own.
     */
    password?: string;
  } = {},
): Promise<TestAccount> {
  counter += 1;
  const username = `user${counter}_${Math.random().toString(36).slice(2, 8)}`;
  const password = options.password ?? `${CHEAP_PASSWORD_PREFIX}${Math.random().toString(36).slice(2)}`;
  const created = await createAccountWithKey(
    { store: t.db.store, clock: t.clock, actor: cliActor() },
    {
      username,
      password,
      credits: options.credits ?? { sms: 1000 },
      rateLimit: 0,
      ...(options.role ? { role: options.role } : {}),
    },
  );
  if (options.dltScrubbing !== true) {
    await t.db.store.db.updateTable("accounts").set({ dlt_scrubbing: 0 }).where("id", "=", created.id).execute();
  }
  const sender = options.sender === undefined ? "SWBRD" : options.sender;
  if (sender) await addSenderId(t.db.store.db, t.clock, created.id, sender, { approve: true });
  return { id: created.id, username, password, apiKey: created.api_key };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies field by field and assert them
  body: any;
  text: string;
}

/** A real HTTP request to the test gateway; parses JSON bodies when they are JSON. */
export async function call(
  t: TestGateway,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; json?: unknown; body?: string } = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  let body: string | undefined = init.body;
  if (init.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.json);
  }
  const response = await fetch(`${t.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}
