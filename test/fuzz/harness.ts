// The fuzz suite's gateway and checks (issue 22). Each file starts one real gateway (api role:
// nothing changes behind a request's back, so a refusal can be checked for writes), sends
// generated requests over one keep-alive connection (a refusal that leaves the body unread
// hangs the next case), and checks after every case:
// - no 5xx;
// - the family's own error dialect (legacy: HTTP 200 and a negative code as plain text; v2:
//   the JSON envelope with `error.code`);
// - a refusal wrote nothing: the account's balances, ledger, messages and other rows unchanged;
// - no credential in any log line the gateway wrote.
// FUZZ_RUNS sets the cases per property (default 200); FUZZ_SEED replays a failure, whose seed
// and path fast-check prints.
//
// A property may bound its gateway's heap growth (the carrier callbacks: 10 MiB): the heap is
// measured after forced collections before and after its cases, the measure after one property
// serving as the next one's before. Forced collections of the test process's whole heap cost
// up to a second each on a loaded machine, so a property without a bound measures only for
// bench/fuzz's figures (FUZZ_COUNTS_FILE).
//
// bench/fuzz/run.mjs runs the same properties against a gateway process it started: with
// FUZZ_SERVER_URL and FUZZ_DATABASE_URL set, the cases go to that server (SQLite only), an
// answer over FUZZ_ANSWER_MS fails the case, the secrets to look for in the server's log are
// appended to FUZZ_SECRETS_FILE, each property's figures (requests, 5xx, heap before and after,
// when it ran) to FUZZ_COUNTS_FILE, and the heap is read through FUZZ_INSPECTOR_URL.
import fs from "node:fs";
import { Writable } from "node:stream";
import type fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, type Gateway, startGateway } from "../../src/app/gateway.js";
import { systemClock } from "../../src/base/core/clock.js";
import { loadConfig } from "../../src/base/runtime/config.js";
import type { Engine } from "../../src/base/store/engine.js";
import { openStore } from "../../src/base/store/store.js";
import {
  createTestDatabase,
  describeEachEngine,
  describeEnginesTogether,
  type TestDatabase,
} from "../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, testConfig } from "../helpers/gateway.js";
import { MiB } from "../helpers/heap.js";
import { RawConnection as Connection, type RawConnection, type RawResponse } from "../helpers/raw-http.js";
import { gatewayHeap } from "./server-heap.js";

export interface FuzzGateway extends TestGateway {
  /**
   * The lines the gateway logged that carry a secret, as written. Each line is looked at as it
   * is written, against the secrets known then (a secret does not exist before its account), and
   * not kept otherwise: thousands of cases' lines would count in the heap a property measures.
   */
  leaks: string[];
  /** An account with credits in every wallet, the sender SWBRD and the email domain shop.example.com. */
  account: TestAccount;
  /** Strings that must never reach a log line. */
  secrets: string[];
}

/** The secrets the callbacks' properties sign with; bench/fuzz starts its server with the same settings. */
export const FUZZ_APP_SECRET = "fuzz-app-secret-0123456789";
export const FUZZ_VOICE_TOKEN = "fuzz-voice-token-0123456789";
export const FUZZ_VOICE_CALLBACK_URL = "https://voice.fuzz.example.com";

/** `runs`: the cases of a property in the suite, where FUZZ_RUNS does not set them (a slow case gets fewer). */
export function fuzzParameters<T>(runs = 200): fc.Parameters<T> {
  const seed = process.env.FUZZ_SEED;
  return {
    numRuns: Number(process.env.FUZZ_RUNS ?? runs),
    ...(seed ? { seed: Number(seed) } : {}),
    // A failing case is shrunk for at most this long: the report (seed, path, case) comes first.
    interruptAfterTimeLimit: 120_000,
    markInterruptAsFailure: false,
  };
}

/**
 * A property's time-out: a long run (FUZZ_RUNS=5000) needs more than the suite's 30 s. 150 ms a
 * case: a mailed DSN takes about 100 ms, and 60 ms timed its property out at FUZZ_RUNS=1000.
 */
function fuzzTimeout(): number {
  return Math.max(60_000, Number(process.env.FUZZ_RUNS ?? 200) * 150);
}

const external = process.env.FUZZ_SERVER_URL;
/** bench/fuzz collects each property's figures, its heap before and after included. */
const counted = process.env.FUZZ_COUNTS_FILE !== undefined;

/** describeEachEngine, or one suite against the external server of bench/fuzz. */
export function describeFuzz(title: string, body: (engine: Engine) => void): void {
  if (external) describe(`${title} [${external}]`, () => body("sqlite"));
  else describeEachEngine(title, body);
}

/** describeFuzz, the engines' suites at the same time (describeEnginesTogether). */
export function describeFuzzTogether(title: string, body: (engine: Engine) => void): void {
  if (external) describe(`${title} [${external}]`, () => body("sqlite"));
  else describeEnginesTogether(title, body);
}

/** The gateway process bench/fuzz started, and its database opened beside it. */
async function externalGateway(): Promise<FuzzGateway> {
  const config = loadConfig({ DATABASE_URL: process.env.FUZZ_DATABASE_URL ?? "", LOG_LEVEL: "silent" });
  if (config.database.engine !== "sqlite") throw new Error("FUZZ_DATABASE_URL must be the server's sqlite: URL");
  const target = config.database;
  const store = await openStore(target, { sqliteSynchronous: "NORMAL" });
  const db: TestDatabase = { engine: "sqlite", store, target, url: `sqlite:${target.file}`, drop: () => store.close() };
  const base: TestGateway = {
    db,
    gateway: undefined as unknown as Gateway,
    url: external ?? "",
    clock: systemClock,
    config,
  };
  const account = await fundedAccount(base);
  fs.appendFileSync(process.env.FUZZ_SECRETS_FILE ?? "/dev/null", `${account.password}\n${account.apiKey}\n`);
  return { ...base, leaks: [], account, secrets: [account.password, account.apiKey] };
}

function fundedAccount(t: TestGateway): Promise<TestAccount> {
  return buildAccount(t, {
    credits: { sms: 1_000_000, international: 1_000, whatsapp: 1_000, email: 1_000_000, voice: 100_000 },
  });
}

function useFuzzGateway(engine: Engine, env: Record<string, string> = {}): () => FuzzGateway {
  let current: FuzzGateway | undefined;
  let gateway: Gateway | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (external) {
      current = await externalGateway();
      drop = () => current!.db.drop();
      return;
    }
    const db = await createTestDatabase(engine);
    drop = () => db.drop();
    const leaks: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        const line = String(chunk);
        if (current?.secrets.some((secret) => line.includes(secret))) leaks.push(line);
        done();
      },
    });
    const config = testConfig(db, { SIMULATOR_FAILURE_RATE: "0", LEGACY_THROTTLE_PER_SECOND: "0", ...env });
    gateway = await startGateway({
      config,
      roles: ["api"],
      clock: systemClock,
      store: db.store,
      logger: createLogger({ logLevel: "info" }, sink),
      // Built by the first request for it (the v2 family's property reads it), as in startTestGateway.
      openApiAtStart: false,
    });
    const base: TestGateway = { db, gateway, url: gateway.url ?? "", clock: systemClock, config };
    const account = await fundedAccount(base);
    current = { ...base, leaks, account, secrets: [account.password, account.apiKey] };
  });
  afterAll(async () => {
    await gateway?.stop();
    await drop?.();
  });
  return () => {
    if (!current) throw new Error("the fuzz gateway is not running");
    return current;
  };
}

/** What a property's body gets: the gateway, the suite's connection and the property's counts. */
export interface FuzzRun {
  t: FuzzGateway;
  client: FuzzClient;
  outcomes: Outcomes;
}

export interface PropertyOptions {
  /** The most the gateway's heap (after forced collections) may grow over the property's cases. */
  heapGrowthMax?: number;
}

/**
 * A suite's gateway (one for the file, `env` added to its settings) and `property`, which
 * declares one test: `body` runs a property over the suite's one keep-alive connection, counting
 * its cases in an Outcomes named `family`; after it, both sides must have been reached and no
 * secret may be in the log.
 */
export function useFuzzSuite(
  engine: Engine,
  env: Record<string, string> = {},
): {
  gateway: () => FuzzGateway;
  property: (title: string, family: string, body: (run: FuzzRun) => Promise<void>, options?: PropertyOptions) => void;
} {
  const gateway = useFuzzGateway(engine, env);
  let client: FuzzClient | undefined;
  afterAll(() => client?.close());
  /** The heap the last property of the suite measured at its end, if it passed: the next one's before. */
  let heapAtEnd: number | undefined;
  const property = (
    title: string,
    family: string,
    body: (run: FuzzRun) => Promise<void>,
    options: PropertyOptions = {},
  ): void => {
    it(title, { timeout: fuzzTimeout() }, async () => {
      const t = gateway();
      client ??= new FuzzClient(t);
      const outcomes = new Outcomes(family);
      const measured = options.heapGrowthMax !== undefined || counted;
      // bench/fuzz measures each property's own before: its figures place each measure in its property.
      const previous = counted ? undefined : heapAtEnd;
      heapAtEnd = undefined;
      if (measured) outcomes.heapBefore = previous ?? (await outcomes.measureHeap());
      await body({ t, client, outcomes });
      if (measured) outcomes.heapAfter = await outcomes.measureHeap();
      outcomes.expectBoth(client);
      expectNoSecretInLogs(t);
      if (options.heapGrowthMax !== undefined) {
        const grown = outcomes.heapAfter - outcomes.heapBefore;
        expect(grown, `the gateway's heap grew by ${(grown / MiB).toFixed(1)} MiB`).toBeLessThan(options.heapGrowthMax);
      }
      if (measured) heapAtEnd = outcomes.heapAfter;
    });
  };
  return { gateway, property };
}

/** Row counts and balances of an account: equal before and after a refused request. */
export async function accountState(t: TestGateway, accountId: number): Promise<Record<string, number>> {
  const db = t.db.store.db;
  // Two statements, the counts as subqueries of one: every case reads them twice, and each
  // statement costs its compilation and a message each way (on PostgreSQL the two share a
  // round trip: the store pipelines).
  const [wallets, counts] = await Promise.all([
    db.selectFrom("wallets").select(["wallet", "balance", "held"]).where("account_id", "=", accountId).execute(),
    db
      .selectNoFrom((eb) => {
        const count = (table: "messages" | "ledger_entries" | "contact_groups" | "email_templates") =>
          eb
            .selectFrom(table)
            .select((c) => c.fn.countAll<number>().as("n"))
            .where("account_id", "=", accountId);
        return [
          count("messages").as("messages"),
          count("ledger_entries").as("ledger"),
          count("contact_groups").as("groups"),
          count("email_templates").as("email_templates"),
          eb
            .selectFrom("contacts")
            .innerJoin("contact_groups", "contact_groups.id", "contacts.group_id")
            .select((c) => c.fn.countAll<number>().as("n"))
            .where("contact_groups.account_id", "=", accountId)
            .as("contacts"),
        ];
      })
      .executeTakeFirstOrThrow(),
  ]);
  return {
    messages: Number(counts.messages),
    ledger: Number(counts.ledger),
    groups: Number(counts.groups),
    email_templates: Number(counts.email_templates),
    contacts: Number(counts.contacts),
    ...Object.fromEntries(
      wallets.flatMap((w) => [
        [`${w.wallet}`, Number(w.balance)],
        [`${w.wallet}_held`, Number(w.held)],
      ]),
    ),
  };
}

/** One keep-alive connection for a property's cases, opened again only when the server closed it. */
const ANSWER_MS = Number(process.env.FUZZ_ANSWER_MS ?? 10_000);

export class FuzzClient {
  private connection: RawConnection | undefined;
  /** The slowest answer so far, in ms. */
  slowestMs = 0;

  constructor(private readonly t: TestGateway) {}

  async send(
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: Buffer | string } = {},
  ): Promise<RawResponse> {
    if (!this.connection || this.connection.isClosed) this.connection = await Connection.open(this.t.url);
    // A generous bound for one answer on a loaded 2-core machine (a hung connection takes
    // ~66 s); bench/fuzz's watchdog sets 1 s.
    const started = performance.now();
    let answer: RawResponse;
    try {
      answer = await this.connection.request(method, path, { ...options, timeoutMs: ANSWER_MS });
    } catch (error) {
      // An answer still on its way would be read as the next case's (fast-check replays cases on
      // this client while it shrinks): a case that got no answer leaves no connection behind.
      this.close();
      throw error;
    }
    const tookMs = performance.now() - started;
    this.slowestMs = Math.max(this.slowestMs, tookMs);
    if (tookMs > ANSWER_MS) throw new Error(`${method} ${path.slice(0, 200)} took ${tookMs.toFixed(0)} ms`);
    if (answer.headers.connection === "close") this.close();
    return answer;
  }

  close(): void {
    this.connection?.close();
    this.connection = undefined;
  }
}

export type Dialect = "legacy" | "v2" | "email" | "voice";

/** True when the answer is a refusal, after checking it is one in the family's dialect (or a success). */
export function checkAnswer(dialect: Dialect, answer: RawResponse, outcomes?: Outcomes): boolean {
  if (answer.status >= 500) outcomes?.serverError();
  expect(answer.status, answer.body).toBeLessThan(500);
  if (dialect === "v2") {
    // An export's success is the file itself (CSV or JSON Lines); its refusals are the envelope.
    const type = answer.headers["content-type"] ?? "";
    if (answer.status < 400 && /^(text\/csv|application\/x-ndjson)/.test(type)) return false;
    expect(type, answer.body).toMatch(/^application\/json/);
    const body = JSON.parse(answer.body);
    if (answer.status < 400) return false;
    expect(body.success === false || body.status === "error", answer.body).toBe(true);
    expect(typeof body.error?.code, answer.body).toBe("string");
    expect(typeof body.message, answer.body).toBe("string");
    return true;
  }
  // Legacy, XML, email and voice: plain text, a negative code for every refusal; the legacy
  // lists (templates, mis) answer a JSON array, served as JSON.
  if (dialect === "legacy" && /^application\/json/.test(answer.headers["content-type"] ?? "")) {
    expect(answer.status, answer.body).toBe(200);
    expect(Array.isArray(JSON.parse(answer.body)), answer.body).toBe(true);
    return false;
  }
  expect(answer.headers["content-type"], answer.body).toMatch(/^text\/plain/);
  if (/^-\d+$/.test(answer.body)) {
    expect([200, 429], answer.body).toContain(answer.status);
    return true;
  }
  expect(answer.status, answer.body).toBe(200);
  return false;
}

/** How a property's cases were answered: a generator that never reaches one side tests little. */
export class Outcomes {
  accepted = 0;
  refused = 0;
  /** Answers of 500 or more (each fails its case). */
  serverErrors = 0;
  heapBefore = 0;
  heapAfter = 0;
  /** When the heap was measured: a forced collection stops the gateway's loop, which bench/fuzz does not count as a stall. */
  readonly heapMeasuredAt: number[] = [];
  readonly startedAt = Date.now();

  /** `family` names the property in bench/fuzz's figures. */
  constructor(readonly family: string) {}

  record(refused: boolean): void {
    if (refused) this.refused += 1;
    else this.accepted += 1;
  }

  serverError(): void {
    this.serverErrors += 1;
  }

  async measureHeap(): Promise<number> {
    this.heapMeasuredAt.push(Date.now());
    return gatewayHeap();
  }

  /** Checks both sides were reached, and hands the counts to bench/fuzz when it runs. */
  expectBoth(client: FuzzClient): void {
    expect(this.refused, "no case was refused").toBeGreaterThan(0);
    expect(this.accepted, "no case was accepted").toBeGreaterThan(0);
    const file = process.env.FUZZ_COUNTS_FILE;
    if (file) {
      const figures = {
        family: this.family,
        accepted: this.accepted,
        refused: this.refused,
        serverErrors: this.serverErrors,
        slowestMs: client.slowestMs,
        heapBefore: this.heapBefore,
        heapAfter: this.heapAfter,
        heapMeasuredAt: this.heapMeasuredAt,
        startedAt: this.startedAt,
        endedAt: Date.now(),
      };
      fs.appendFileSync(file, `${JSON.stringify(figures)}\n`);
    }
  }
}

/** Sends one case, checks its answer, and for a refusal that nothing was written. */
export async function sendCase(
  t: FuzzGateway,
  client: FuzzClient,
  dialect: Dialect,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: Buffer | string; outcomes?: Outcomes } = {},
): Promise<RawResponse> {
  const before = await accountState(t, t.account.id);
  const answer = await client.send(method, path, options);
  const refused = checkAnswer(dialect, answer, options.outcomes);
  options.outcomes?.record(refused);
  if (refused) expect(await accountState(t, t.account.id), `${method} ${path} → ${answer.body}`).toEqual(before);
  return answer;
}

/** No log line carries a secret of the fuzz account (the redaction of issue 22's point 1). */
function expectNoSecretInLogs(t: FuzzGateway): void {
  expect(t.leaks, "log lines carrying a secret").toEqual([]);
}
