// What an operator reads in the log of a running gateway: one line per request, no credential
// anywhere (issue 22: a failed request was logged with `api_key=` in its URL), and warnings
// that come once per episode however many times the thing behind them repeats.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { stripVTControlCharacters } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { setUpWhatsAppDemo } from "../../src/channels/whatsapp/index.js";
import { CarrierWarnings } from "../../src/delivery/carriers/warnings.js";
import { type AggregatorAnswer, FakeAggregator } from "../delivery/carriers/fake-aggregator.js";
import { suiteReceivers, until } from "../domain/webhooks/receiver.js";
import { BIN, runCli, startServer } from "../helpers/cli.js";
import { createEmptyDatabase, type EmptyDatabase } from "../helpers/empty-database.js";
import { describeEnginesTogether } from "../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { captureLogs, type LogCapture, type LogLine, WARN } from "../helpers/log-capture.js";
import { RawConnection } from "../helpers/raw-http.js";

// Its slowest tests take up to 10 s amid the whole suite on a slow two-core machine, where a
// test of the same kind once took four times as long as usual: twice the default bound.
vi.setConfig({ testTimeout: 60_000 });

const OTP = "Your OTP is 482913. Do not share it with anyone.";

// The engines' suites run at the same time, each with the gateways, aggregators and receivers
// of its own tests, stopped after each of them.
describeEnginesTogether("the gateway's log", (engine) => {
  const running: TestGateway[] = [];
  const aggregators: FakeAggregator[] = [];
  const receiver = suiteReceivers();
  afterEach(async () => {
    for (const t of running.splice(0)) {
      await t.gateway.stop();
      await t.db.drop();
    }
    for (const aggregator of aggregators.splice(0)) await aggregator.stop();
  });

  async function gateway(env: Record<string, string> = {}): Promise<{ t: TestGateway; logs: LogCapture }> {
    const logs = captureLogs();
    const t = await startTestGateway(engine, { logger: logs.logger, env });
    running.push(t);
    return { t, logs };
  }

  /**
   * A gateway whose route T goes to the http-sms carrier `name`, on a FakeAggregator that answers
   * every send with `answer`; `request` gives the carrier's method, URL, body and auth for the
   * aggregator's URL. Resolves once the connector has started, with an account of 100 SMS credits.
   */
  async function gatewayOnAggregator(
    name: string,
    answer: AggregatorAnswer,
    request: (aggregatorUrl: string) => Record<string, unknown>,
  ) {
    const aggregator = await new FakeAggregator().start();
    aggregators.push(aggregator);
    aggregator.answer = () => answer;
    const { t, logs } = await gateway();
    const operator = await buildAccount(t, { role: "operator" });
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const admin = (method: string, path: string, json: unknown) =>
      call(t, method, `/admin/api${path}`, { headers: { authorization: `Bearer ${operator.apiKey}` }, json });
    const defined = await admin("PUT", `/carriers/${name}`, {
      type: "http-sms",
      ...request(aggregator.url),
      response: { type: "json", id_path: "id" },
      timeout_ms: 2_000,
      max_connections: 4,
      rate_per_second: 1_000,
    });
    expect(defined.status, defined.text).toBeLessThan(300);
    const routed = await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name }] });
    expect(routed.status, routed.text).toBeLessThan(300);
    await until(() => logs.matching(/connector started/).some((line) => line.connector === name));
    // The connector can start in a reload that read the routes before the PUT above: a send
    // then went to the simulator (a slow run's status never failed). This reload reads both.
    await t.gateway.workers!.carriers.reload();
    return { t, logs, account, aggregator };
  }

  /** The request line of `route`, once the server has written it (after the answer went out). */
  async function requestLine(logs: LogCapture, route: string, status?: number): Promise<LogLine> {
    const find = () =>
      logs.lines.find((line) => line.http?.route === route && (status === undefined || line.http.status === status));
    await until(() => find() !== undefined, 5_000);
    return find()!;
  }

  it("logs a WhatsApp send answered 502 with its URL, but not the api_key of its query string", async () => {
    const { t, logs } = await gateway();
    const account = await buildAccount(t, { credits: { whatsapp: 5 }, sender: null });
    await setUpWhatsAppDemo(t.db.store, t.clock, account.id);
    // The simulated upstream refuses recipients ending 0003: the send answers 502.
    const answer = await call(t, "POST", `/api/v2/whatsapp/send?api_key=${account.apiKey}`, {
      json: { to: "919876500003", template: "hello_world" },
    });
    expect(answer.status).toBe(502);
    // Whatever line reports the failure (before the fix: "request failed" with the full URL).
    await until(() => logs.lines.some((line) => JSON.stringify(line).includes("502")), 5_000);
    expect(logs.text()).not.toContain(account.apiKey);
    const line = await requestLine(logs, "/api/v2/whatsapp/send");
    expect(line).toMatchObject({
      level: 50,
      http: {
        method: "POST",
        status: 502,
        account: account.username,
        code: "upstream_error",
        url: "/api/v2/whatsapp/send?api_key=[REDACTED]",
      },
    });
    expect(logs.text()).not.toContain(account.apiKey);
  });

  it("never logs a password, key or Authorization, whichever family and place carried it", async () => {
    const { t, logs } = await gateway();
    const account = await buildAccount(t, { credits: { sms: 10, voice: 10 } });
    const credits = await call(t, "GET", `/api/getcredits?username=${account.username}&password=${account.password}`);
    expect(credits.text).toBe("10");
    await call(t, "GET", `/api/getcredits?apikey=${account.apiKey}`);
    await call(t, "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${account.apiKey}` } });
    await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": account.apiKey } });
    await call(t, "GET", `/voicecall/v1/send?apikey=${account.apiKey}&from=%2B918047110000&to=9876543210&text=Hi`);
    await call(t, "POST", "/httpapi/send", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `username=${account.username}&password=${account.password}&sender_id=SWBRD&phonenumber=9876543210&message=Hi`,
    });
    await until(() => logs.lines.filter((line) => line.http).length >= 6, 5_000);

    const getcredits = logs.lines.filter((line) => line.http?.route === "/api/getcredits");
    expect(getcredits.map((line) => line.http.url)).toEqual([
      `/api/getcredits?username=${account.username}&password=[REDACTED]`,
      "/api/getcredits?apikey=[REDACTED]",
    ]);
    expect(getcredits.every((line) => line.http.account === account.username)).toBe(true);
    const text = logs.text();
    expect(text).not.toContain(account.apiKey);
    expect(text).not.toContain(account.password);
  });

  it("writes one line per request: method, route, status, latency, address, account and request id", async () => {
    const { t, logs } = await gateway();
    const account = await buildAccount(t);
    const sent = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${account.apiKey}`, "x-request-id": "order-1001.a" },
      json: { sender_id: "SWBRD", recipient: "9876543210", message: OTP },
    });
    expect(sent.status).toBe(200);
    await call(t, "GET", `/api/v2/sms/status/${sent.body.data.message_id}`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    await call(t, "GET", "/healthz");
    await call(t, "GET", "/no/such/path");

    const send = await requestLine(logs, "/api/v2/sms/send");
    expect(send).toMatchObject({
      level: 30,
      msg: "POST /api/v2/sms/send 200",
      reqId: "order-1001.a",
      http: {
        method: "POST",
        route: "/api/v2/sms/send",
        url: "/api/v2/sms/send",
        status: 200,
        ip: "127.0.0.1",
        account: account.username,
      },
    });
    expect(send.http.ms).toBeGreaterThan(0);
    const status = await requestLine(logs, "/api/v2/sms/status/:id");
    // Without an X-Request-Id of the client's, the gateway's own, which the answer carries too.
    expect(status.reqId).toMatch(/^[0-9a-f-]{36}$/);
    const unknown = await requestLine(logs, "unmatched");
    expect(unknown).toMatchObject({ http: { url: "/no/such/path", status: 404, code: "not_found" } });
    expect(unknown.http.account).toBeUndefined();
    // A load balancer's probes are debug lines, not one info line every few seconds.
    expect(logs.lines.filter((line) => line.http?.route === "/healthz")).toEqual([]);
  });

  it("warns once when one address keeps failing to authenticate, on every family", async () => {
    const { t, logs } = await gateway();
    const account = await buildAccount(t);
    for (let i = 0; i < 15; i++) {
      await call(t, "GET", "/api/v2/balance", { headers: { authorization: `Bearer sb_wrong${i}` } });
      // The legacy answer is HTTP 200 with -7; it counts the same.
      expect((await call(t, "GET", `/api/getcredits?username=nobody${i}&password=x`)).text).toBe("-7");
    }
    await call(t, "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${account.apiKey}` } });
    await until(() => logs.lines.filter((line) => line.http).length >= 31, 5_000);
    const warnings = logs.matching(/authentication failures/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: WARN, ip: "127.0.0.1", occurrences: 10 });
    expect(warnings[0]!.msg).toBe(
      "repeated authentication failures from 127.0.0.1: a misconfigured client, or someone guessing credentials",
    );
    expect(logs.lines.filter((line) => line.http?.code === "unauthorized")).toHaveLength(30);
  });

  it("does not count the console's signed-out check (GET /console/session, 401) as a failed authentication", async () => {
    const { t, logs } = await gateway();
    for (let i = 0; i < 15; i++) {
      expect((await call(t, "GET", "/console/session")).status).toBe(401);
      // A stale cookie of a session that ended is a signed-out browser too.
      expect((await call(t, "GET", "/console/session", { headers: { cookie: `sb_session=gone${i}` } })).status).toBe(
        401,
      );
    }
    await until(() => logs.lines.filter((line) => line.http?.route === "/console/session").length >= 30, 5_000);
    // The same number of real failures still warns: the counting is on, the check is left out.
    for (let i = 0; i < 10; i++) await call(t, "GET", "/api/v2/balance", { headers: { authorization: "Bearer sb_x" } });
    await until(() => logs.matching(/authentication failures/).length > 0, 5_000);
    expect(logs.matching(/authentication failures/)).toEqual([
      expect.objectContaining({ occurrences: 10, route: "/api/v2/balance" }),
    ]);
  });

  it("warns once for each login lock, of an address and then of the account, not for each refused login after", async () => {
    const { t, logs } = await gateway({ LOGIN_LOCK_ADDRESSES: "2" });
    const account = await buildAccount(t);
    const guesses = async (from: string, count: number) => {
      const answers: string[] = [];
      const connection = await RawConnection.open(t.url, from);
      try {
        for (let i = 0; i < count; i++) {
          const query = new URLSearchParams({ username: account.username, password: `wrong${i}` });
          answers.push((await connection.request("GET", `/api/getcredits?${query}`)).body);
        }
      } finally {
        connection.close();
      }
      return answers;
    };
    expect(await guesses("127.0.0.2", 14)).toEqual([...Array(10).fill("-7"), ...Array(4).fill("-16")]);
    expect(await guesses("127.0.0.3", 12)).toEqual([...Array(10).fill("-7"), ...Array(2).fill("-16")]);
    expect(await guesses("127.0.0.4", 3)).toEqual(Array(3).fill("-16"));
    const locks = logs.matching(/locked for 15 minutes/);
    expect(locks.map((line) => line.msg)).toEqual([
      `login to account ${account.username} from 127.0.0.2 locked for 15 minutes after 10 failed logins in a row (clear: login-locks)`,
      `account ${account.username} locked for 15 minutes: 2 addresses failed to log in to it (clear: login-locks)`,
    ]);
    expect(locks[0]).toMatchObject({ level: WARN, account: account.username, ip: "127.0.0.2", scope: "address" });
    expect(locks[1]).toMatchObject({ level: WARN, account: account.username, ip: "127.0.0.3", scope: "account" });
  });

  it("warns once for a carrier's refusals of one kind, however many messages it refuses", async () => {
    const { t, logs } = await gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    // The simulated carrier rejects recipients ending 0002 at submit.
    for (let i = 0; i < 12; i++) {
      const sent = await call(t, "POST", "/api/v2/sms/send", {
        headers: { authorization: `Bearer ${account.apiKey}` },
        json: { sender_id: "SWBRD", recipient: `98${1000 + i}0002`, message: OTP },
      });
      expect(sent.status).toBe(200);
    }
    await until(async () => {
      const failed = await t.db.store.db
        .selectFrom("messages")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("account_id", "=", account.id)
        .where("status", "=", "failed")
        .executeTakeFirstOrThrow();
      return Number(failed.n) === 12;
    });
    const refusals = logs.matching(/^carrier simulator refused/);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ level: WARN, connector: "simulator", code: "rejected", retried: false });
  });

  it("says when an http-sms carrier goes down, once, with neither its key nor what it echoed", async () => {
    const { t, logs, account, aggregator } = await gatewayOnAggregator(
      "agg",
      { status: 503, text: "maintenance; login password=hunter2 ok" },
      (url) => ({
        method: "GET",
        url: `${url}/send?to={to}&text={text}`,
        auth: { type: "query", name: "api_key", value: "AGG-SECRET-KEY" },
      }),
    );
    for (let i = 0; i < 12; i++) {
      await call(t, "POST", "/api/v2/sms/send", {
        headers: { authorization: `Bearer ${account.apiKey}` },
        json: { sender_id: "SWBRD", recipient: `98765432${String(10 + i)}`, message: OTP },
      });
    }
    await until(() => logs.matching(/^carrier agg is down/).length > 0);
    expect(logs.matching(/^carrier agg is down/)).toHaveLength(1);
    expect(logs.matching(/^carrier agg is down/)[0]).toMatchObject({ level: WARN, state: "down" });
    const refusals = logs.matching(/^carrier agg refused/);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ code: "upstream_unavailable", retried: true });
    expect(aggregator.requests.length).toBeGreaterThanOrEqual(10);
    expect(aggregator.requests[0]!.url).toContain("api_key=AGG-SECRET-KEY");
    expect(logs.text()).not.toContain("AGG-SECRET-KEY");
    expect(logs.lines.filter((line) => JSON.stringify(line).includes("hunter2"))).toEqual([]);
  });

  // An aggregator that echoes the request in its refusal would otherwise hand the connector's
  // credentials to the log and, through the failed message's description, to the account.
  it("keeps an http-sms carrier's credentials out of a refusal that echoes them, in the log and the status answer", async () => {
    const { t, logs, account, aggregator } = await gatewayOnAggregator(
      "echo",
      {
        status: 400,
        text: '{"error":"key AGG-BEARER-TOKEN of user acme refused","password":"hunter2","hint":"api_key=AGG-KEY-2"}',
      },
      (url) => ({
        method: "POST",
        url: `${url}/send`,
        body: { content_type: "application/json", template: '{"to":"{to}","text":"{text}"}' },
        auth: { type: "bearer", token: "AGG-BEARER-TOKEN" },
      }),
    );
    const sent = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { sender_id: "SWBRD", recipient: "9876543210", message: OTP },
    });
    expect(sent.status, sent.text).toBe(200);
    const status = async () =>
      call(t, "GET", `/api/v2/sms/status/${sent.body.data.message_id}`, {
        headers: { authorization: `Bearer ${account.apiKey}` },
      });
    await until(async () => (await status()).body.data?.status === "failed");
    const answer = (await status()).text;
    expect(answer).toContain("of user acme refused");
    await until(() => logs.matching(/^carrier echo refused/).length > 0);
    for (const secret of ["AGG-BEARER-TOKEN", "hunter2", "AGG-KEY-2"]) {
      expect(answer).not.toContain(secret);
      expect(logs.text()).not.toContain(secret);
    }
    expect(aggregator.requests[0]!.headers.authorization).toBe("Bearer AGG-BEARER-TOKEN");
  });

  it("warns once while a webhook endpoint fails, and says when it answers again", async () => {
    const { t, logs } = await gateway({ SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" });
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const hook = await receiver();
    hook.answer = () => 500;
    const url = `${hook.url}?token=hook-secret-token`;
    const set = await call(t, "PUT", "/api/v2/webhooks", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { delivery_report: url },
    });
    expect(set.status, set.text).toBe(200);
    const send = () =>
      call(t, "POST", "/api/v2/sms/send", {
        headers: { authorization: `Bearer ${account.apiKey}` },
        json: { sender_id: "SWBRD", recipient: "9876543210", message: OTP },
      });
    for (let i = 0; i < 4; i++) await send();
    // Each message's first event fails; its next waits for the retry, in order.
    await until(() => logs.matching(/^webhook endpoint failing/).length > 0);
    const failing = logs.matching(/^webhook endpoint failing/);
    expect(failing).toHaveLength(1);
    expect(failing[0]).toMatchObject({
      level: WARN,
      account_id: account.id,
      url: `${hook.url}?token=[REDACTED]`,
      error: "HTTP 500",
      occurrences: 3,
    });

    hook.answer = () => 200;
    await send();
    await until(() => logs.matching(/^webhook endpoint answers again/).length > 0);
    const recovered = logs.matching(/^webhook endpoint answers again/);
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.occurrences).toBeGreaterThanOrEqual(3);
    expect(logs.text()).not.toContain("hook-secret-token");
    expect(logs.text()).not.toContain(set.body.data.secret);
  });
});

describe("carrier state warnings", () => {
  it("say when a connector goes down or degraded and when it is up again, once per change", () => {
    const logs = captureLogs();
    const warnings = new CarrierWarnings(logs.logger);
    const health = (state: "up" | "down" | "degraded", reason: string | null = null) => ({
      connector: "airtel",
      type: "smpp",
      state,
      reason,
      sessions: null,
      results: { ok: 0, retryable: 0, failed: 0, deferred: 0 },
      recent: { submits: 0, refused: 0 },
      last_error: null,
      retry_at: null,
    });
    for (const snapshot of [
      health("up"),
      health("up"),
      health("degraded", "1 of 2 binds down"),
      health("down", "no bound connection"),
      health("down", "no bound connection"),
      health("up"),
      health("up"),
    ]) {
      warnings.health([snapshot]);
    }
    expect(logs.lines.map((line) => `${line.level} ${line.msg}`)).toEqual([
      "40 carrier airtel is degraded: 1 of 2 binds down",
      "40 carrier airtel is down: no bound connection",
      "30 carrier airtel is up again",
    ]);
  });
});

describe("the executable's log format", () => {
  let empty: EmptyDatabase;
  beforeAll(async () => {
    empty = await createEmptyDatabase("sqlite");
  });
  afterAll(() => empty.drop());

  it("writes JSON lines when stdout is not a terminal, and says so plainly for a bad LOG_FORMAT", async () => {
    const server = await startServer("start", { DATABASE_URL: empty.url });
    await fetch(`${server.url}/api/v2/balance?api_key=sb_not_a_key`);
    await until(() => server.output().includes('"route":"/api/v2/balance"'), 5_000);
    const lines = server
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    expect(lines.find((line) => line.http?.route === "/api/v2/balance")).toMatchObject({
      msg: "GET /api/v2/balance 401",
      http: { url: "/api/v2/balance?api_key=[REDACTED]", status: 401, code: "unauthorized" },
    });
    expect(await server.stop()).toBe(0);

    const refused = await runCli(["start"], { DATABASE_URL: empty.url, PORT: "0", LOG_FORMAT: "colour" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('LOG_FORMAT must be auto, json or pretty (got "colour")');
  });

  // `script` gives the process a pseudo-terminal, as a person starting it in a shell has.
  it.skipIf(!existsSync("/usr/bin/script"))("writes readable colour lines on a terminal, one per request", async () => {
    const child = spawn(
      "script",
      ["-qfec", `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} start`, "/dev/null"],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          DATABASE_URL: empty.url,
          PORT: "0",
          HOST: "127.0.0.1",
          SMPP_SERVER_PORT: "0",
        },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    try {
      await until(() => /switchboard running/.test(output), 20_000);
      const url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stripVTControlCharacters(output))?.[1];
      expect(url).toBeDefined();
      await fetch(`${url}/api/v2/balance`, { headers: { "x-request-id": "tty-check-1" } });
      await until(() => output.includes("tty-check-1"), 5_000);
    } finally {
      child.kill("SIGTERM");
    }
    const plain = stripVTControlCharacters(output);
    // Colour codes were there to strip.
    expect(plain.length).toBeLessThan(output.length);
    expect(plain).not.toContain('{"level"');
    expect(plain).toMatch(/INFO: GET \/api\/v2\/balance 401 [\d.]+ms unauthorized 127\.0\.0\.1 tty-check-1\r?\n/);
  });
});

describe("the logger", () => {
  it("replaces credential fields at any of the first three levels, and credentials inside text", () => {
    const logs = captureLogs();
    logs.logger.warn(
      {
        headers: { Authorization: "Bearer tok-1", "X-API-Key": "key-2" },
        connector: { name: "airtel", password: "smpp-3", tls: { client_secret: "cs-4" } },
        smtp: "smtp://relay-user:relay-5@mail.example.com:587",
        upstream: "HTTP 401: Authorization: Bearer tok-6 refused",
      },
      "sent https://api.example.in/send?user=acme&apikey=key-7&to=9876543210",
    );
    logs.logger.error({ err: new Error("connect failed for https://h/x?password=pw-8") }, "boom");
    const text = logs.text();
    for (const secret of ["tok-1", "key-2", "smpp-3", "cs-4", "relay-5", "tok-6", "key-7", "pw-8"]) {
      expect(text).not.toContain(secret);
    }
    expect(logs.lines[0]).toMatchObject({
      headers: { Authorization: "[REDACTED]", "X-API-Key": "[REDACTED]" },
      connector: { name: "airtel", password: "[REDACTED]", tls: { client_secret: "[REDACTED]" } },
      smtp: "smtp://relay-user:[REDACTED]@mail.example.com:587",
      msg: "sent https://api.example.in/send?user=acme&apikey=[REDACTED]&to=9876543210",
    });
    expect(logs.lines[1]!.err.message).toBe("connect failed for https://h/x?password=[REDACTED]");
  });

  it("replaces credentials in JSON text, and the gateway's own keys and webhook secrets by their shape", () => {
    const logs = captureLogs();
    const key = `sb_${"K".repeat(43)}`;
    const secret = `whsec_${"S".repeat(43)}=`;
    logs.logger.error(
      {
        upstream: '{"error":{"message":"bad login","password":"pw-1","client_secret": "cs-\\"2"},"name":"acme"}',
        written: `{"status":"success","data":{"delivery_report":null,"secret":"${secret}"}}`,
        note: `retried with ${key}`,
      },
      'answered {"api_key":"key-3","to":"9876543210"} and cut {"token":"tok-4',
    );
    const text = logs.text();
    for (const leaked of ["pw-1", "cs-", "key-3", "tok-4", key.slice(10), secret.slice(6)]) {
      expect(text).not.toContain(leaked);
    }
    expect(logs.lines[0]).toMatchObject({
      upstream: '{"error":{"message":"bad login","password":"[REDACTED]","client_secret": "[REDACTED]"},"name":"acme"}',
      written: '{"status":"success","data":{"delivery_report":null,"secret":"[REDACTED]"}}',
      note: `retried with ${key.slice(0, 10)}[REDACTED]`,
      msg: 'answered {"api_key":"[REDACTED]","to":"9876543210"} and cut {"token":"[REDACTED]"',
    });
  });
});
