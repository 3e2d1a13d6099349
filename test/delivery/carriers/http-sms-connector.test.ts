// The http-sms connector against a local fake aggregator over real HTTP: requests rendered
// exactly from the templates, each kind of auth, reading the message id, which failures are
// retried (only those where the request was never written), the rate cap and the start window.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type HttpSmsConfig, HttpSmsConnector } from "../../../src/delivery/carriers/http-sms/index.js";
import { closedPort, FakeAggregator } from "./fake-aggregator.js";
import { aggregatorConfig, smsRow } from "./http-sms-helpers.js";

const CALLBACK = "https://sw.example.test/carriers/http-sms/agg/dlr?x=1";

describe("http-sms connector", () => {
  let aggregator: FakeAggregator;
  const connectors: HttpSmsConnector[] = [];

  function connector(changes: Partial<HttpSmsConfig> = {}, startWindowMs?: number): HttpSmsConnector {
    const created = new HttpSmsConnector(aggregatorConfig(aggregator.url, changes), {
      callbackUrl: CALLBACK,
      ...(startWindowMs === undefined ? {} : { startWindowMs }),
    });
    connectors.push(created);
    return created;
  }

  beforeAll(async () => {
    aggregator = await new FakeAggregator().start();
  });
  afterEach(async () => {
    for (const c of connectors.splice(0)) await c.stop();
    aggregator.reset();
  });
  afterAll(async () => {
    await aggregator.stop();
  });

  describe("rendering", () => {
    it("GET: every placeholder percent-encoded into the URL, exactly", async () => {
      const results = await connector().submit([smsRow({ body: 'A&B=C 50% #1+2/? "q"' })]);
      expect(results).toEqual([{ ok: true, upstreamId: "up-1" }]);
      const [request] = aggregator.requests;
      expect(request!.method).toBe("GET");
      expect(request!.url).toBe(
        "/api/send?to=9876543210&sender=SWBTST&text=A%26B%3DC%2050%25%20%231%2B2%2F%3F%20%22q%22&unicode=0" +
          "&pe_id=1101234567890123456&template_id=1107161234567890123&ref=q01TESTSMS0000000000000000" +
          "&dlr_url=https%3A%2F%2Fsw.example.test%2Fcarriers%2Fhttp-sms%2Fagg%2Fdlr%3Fx%3D1",
      );
      expect(request!.query.get("text")).toBe('A&B=C 50% #1+2/? "q"');
      expect(request!.body).toBe("");
    });

    it("Unicode text with {unicode}=1, international recipients in E.164", async () => {
      const text = "नमस्ते, आपका OTP 4321 है 👋";
      const c = connector({
        url: `${aggregator.url}/send?to={to_e164}&digits={to_digits}&text={text}&unicode={unicode}`,
      });
      await c.submit([
        smsRow({ body: text, encoding: "ucs2", recipient: "447700900123" }),
        smsRow({ body: "plain", recipient: "9876543210" }, 1),
        // Singapore: 10 digits with its country code, on the international route: not Indian.
        smsRow({ body: "Singapore", recipient: "6591234567", route: "international" }, 2),
      ]);
      const singapore = aggregator.requests.find((r) => r.query.get("text") === "Singapore");
      expect(singapore!.query.get("to")).toBe("+6591234567");
      expect(singapore!.query.get("digits")).toBe("6591234567");
      const [first, second] = aggregator.requests
        .filter((r) => r !== singapore)
        .sort((a, b) => (a.query.get("text")! < b.query.get("text")! ? 1 : -1));
      expect(first!.query.get("text")).toBe(text);
      expect(first!.query.get("unicode")).toBe("1");
      expect(first!.query.get("to")).toBe("+447700900123");
      expect(first!.query.get("digits")).toBe("447700900123");
      expect(second!.query.get("to")).toBe("+919876543210");
      expect(second!.query.get("digits")).toBe("919876543210");
      expect(second!.query.get("unicode")).toBe("0");
    });

    it("POST form: the body template percent-encoded, with the form content type", async () => {
      const c = connector({
        method: "POST",
        url: `${aggregator.url}/v1/sms`,
        body: {
          content_type: "application/x-www-form-urlencoded",
          template:
            "mobile={to_digits}&sender={from}&msg={text}&unicode={unicode}&entityid={dlt_entity_id}&tempid={dlt_template_id}",
        },
      });
      await c.submit([smsRow({ body: "Hi & bye=1\nनमस्ते {to}", encoding: "ucs2" })]);
      const [request] = aggregator.requests;
      expect(request!.method).toBe("POST");
      expect(request!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
      expect(request!.body).toBe(
        "mobile=919876543210&sender=SWBTST&msg=Hi%20%26%20bye%3D1%0A%E0%A4%A8%E0%A4%AE%E0%A4%B8%E0%A5%8D%E0%A4%A4%E0%A5%87%20%7Bto%7D" +
          "&unicode=1&entityid=1101234567890123456&tempid=1107161234567890123",
      );
    });

    it("POST JSON: values JSON-escaped in place, a placeholder inside the text left as text", async () => {
      const c = connector({
        method: "POST",
        url: `${aggregator.url}/v2/messages`,
        body: {
          content_type: "application/json",
          template:
            '{"to":"{to_e164}","from":"{from}","text":"{text}","unicode":{unicode},"dlt":{"entity":"{dlt_entity_id}","template":"{dlt_template_id}"},"ref":"{message_id}"}',
        },
        headers: { "X-Ref": "ref-{message_id}" },
      });
      const text = 'He said "hi"\\ {from}\n\ttab 👋';
      await c.submit([smsRow({ body: text, encoding: "ucs2" })]);
      const [request] = aggregator.requests;
      expect(request!.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(request!.headers["x-ref"]).toBe("ref-q01TESTSMS0000000000000000");
      expect(JSON.parse(request!.body)).toEqual({
        to: "+919876543210",
        from: "SWBTST",
        text,
        unicode: 1,
        dlt: { entity: "1101234567890123456", template: "1107161234567890123" },
        ref: "q01TESTSMS0000000000000000",
      });
    });

    it("a header template that would carry a line break or non-Latin-1 text fails the message unsent", async () => {
      const c = connector({ headers: { "X-Text": "{text}" }, max_connections: 1 });
      const results = await c.submit([smsRow({ body: "a\r\nX-Evil: 1" }), smsRow({ body: "नमस्ते" }, 1)]);
      expect(results).toEqual([
        expect.objectContaining({ ok: false, retryable: false, code: "bad_request" }),
        expect.objectContaining({ ok: false, retryable: false, code: "bad_request" }),
      ]);
      expect(aggregator.requests).toHaveLength(0);
    });
  });

  describe("auth", () => {
    const cases: [string, HttpSmsConfig["auth"], (request: FakeAggregator["requests"][number]) => void][] = [
      ["none", { type: "none" }, (r) => expect(r.headers.authorization).toBeUndefined()],
      [
        "basic",
        { type: "basic", username: "acme", password: "p@ss:wörd" },
        (r) => expect(r.headers.authorization).toBe(`Basic ${Buffer.from("acme:p@ss:wörd").toString("base64")}`),
      ],
      ["bearer", { type: "bearer", token: "tok-123" }, (r) => expect(r.headers.authorization).toBe("Bearer tok-123")],
      [
        "header",
        { type: "header", name: "X-Api-Key", value: "k-1" },
        (r) => expect(r.headers["x-api-key"]).toBe("k-1"),
      ],
      [
        "query",
        { type: "query", name: "api key", value: "a&b=c" },
        (r) => {
          expect(
            r.url.endsWith(
              "&dlr_url=https%3A%2F%2Fsw.example.test%2Fcarriers%2Fhttp-sms%2Fagg%2Fdlr%3Fx%3D1&api%20key=a%26b%3Dc",
            ),
          ).toBe(true);
          expect(r.query.get("api key")).toBe("a&b=c");
        },
      ],
    ];
    it.each(cases)("%s", async (_kind, auth, check) => {
      await connector({ auth }).submit([smsRow()]);
      expect(aggregator.requests).toHaveLength(1);
      check(aggregator.requests[0]!);
    });
  });

  describe("reading the answer", () => {
    it("a JSON id path through arrays, numbers as text, results in input order", async () => {
      aggregator.answer = (request) => ({
        status: 200,
        json: { status: "OK", data: [{ id: Number(request.query.get("ref")!.slice(-3)) + 1000 }] },
      });
      const c = connector({
        max_connections: 3,
        response: { type: "json", id_path: "data.0.id", success_path: "status", success_values: ["OK"] },
      });
      const rows = Array.from({ length: 9 }, (_, n) => smsRow({}, n));
      expect(await c.submit(rows)).toEqual(rows.map((_, n) => ({ ok: true, upstreamId: String(1000 + n) })));
    });

    it("a success flag that says no fails the message for good, with the aggregator's words", async () => {
      aggregator.answer = () => ({ status: 200, json: { status: "ERROR", message: "Template not approved" } });
      const c = connector({
        response: { type: "json", id_path: "data.id", success_path: "status", success_values: ["OK"] },
      });
      const [result] = await c.submit([smsRow()]);
      expect(result).toMatchObject({ ok: false, retryable: false, code: "rejected" });
      expect((result as { message: string }).message).toContain("Template not approved");
    });

    it("a text answer read with a regex", async () => {
      aggregator.answer = (_r, index) =>
        index === 0 ? { status: 200, text: "OK:abc123\n" } : { status: 200, text: "ERR:DND" };
      const c = connector({ response: { type: "text", id_regex: "^OK:(\\w+)" }, max_connections: 1 });
      expect(await c.submit([smsRow(), smsRow({}, 1)])).toEqual([
        { ok: true, upstreamId: "abc123" },
        expect.objectContaining({
          ok: false,
          retryable: false,
          code: "rejected",
          message: expect.stringContaining("ERR:DND"),
        }),
      ]);
    });

    it("a 2xx that is not JSON, or has no id, fails for good (it may have been sent)", async () => {
      aggregator.answer = (_r, index) =>
        index === 0 ? { status: 200, text: "<html>gateway</html>" } : { status: 200, json: { data: {} } };
      const c = connector({ max_connections: 1 });
      const results = await c.submit([smsRow(), smsRow({}, 1)]);
      expect(results).toEqual([
        expect.objectContaining({ ok: false, retryable: false, code: "bad_response" }),
        expect.objectContaining({ ok: false, retryable: false, code: "bad_response" }),
      ]);
      expect(aggregator.requests).toHaveLength(2);
    });

    it("a 2xx whose id is longer than 100 characters fails for good: no carrier gives one, and it is kept and indexed", async () => {
      aggregator.answer = (_r, index) => ({ status: 200, json: { data: { message_id: "m".repeat(100 + index) } } });
      const c = connector({ max_connections: 1 });
      expect(await c.submit([smsRow(), smsRow({}, 1)])).toEqual([
        { ok: true, upstreamId: "m".repeat(100) },
        expect.objectContaining({
          ok: false,
          retryable: false,
          code: "bad_response",
          message: expect.stringContaining("the message id at data.message_id is longer than 100 characters"),
        }),
      ]);
    });
  });

  describe("failures", () => {
    it("400 is final with the status and body; 429 and 503 are retried", async () => {
      const statuses = [400, 429, 503];
      aggregator.answer = (_r, index) => ({ status: statuses[index]!, json: { error: `code ${statuses[index]}` } });
      const c = connector({ max_connections: 1 });
      const results = await c.submit([smsRow(), smsRow({}, 1), smsRow({}, 2)]);
      expect(results).toEqual([
        { ok: false, retryable: false, code: "rejected", message: 'HTTP 400: {"error":"code 400"}' },
        { ok: false, retryable: true, code: "throttled", message: 'HTTP 429: {"error":"code 429"}' },
        { ok: false, retryable: true, code: "upstream_unavailable", message: 'HTTP 503: {"error":"code 503"}' },
      ]);
    });

    it("configured retryable statuses replace the default", async () => {
      aggregator.answer = (_r, index) => ({ status: [502, 409][index]!, text: "no" });
      const c = connector({ max_connections: 1, retryable_statuses: [409] });
      const results = await c.submit([smsRow(), smsRow({}, 1)]);
      expect(results.map((r) => !r.ok && r.retryable)).toEqual([false, true]);
    });

    it("a connection refused before anything was written is retried", async () => {
      const port = await closedPort();
      const c = new HttpSmsConnector(aggregatorConfig(`http://127.0.0.1:${port}`), { callbackUrl: CALLBACK });
      connectors.push(c);
      const [result] = await c.submit([smsRow()]);
      expect(result).toMatchObject({ ok: false, retryable: true, code: "connect_failed" });
      expect((result as { message: string }).message).toContain("ECONNREFUSED");
    });

    it("a connection reset before the request was written is retried", async () => {
      // In one process the server's accept (and reset) runs before the client's connect completes,
      // so undici reports "connect ECONNRESET" without having written the request.
      aggregator.resetConnections = true;
      const [result] = await connector().submit([smsRow()]);
      expect(result).toMatchObject({ ok: false, retryable: true, code: "connect_failed" });
      expect((result as { message: string }).message).toContain("ECONNRESET");
      expect(aggregator.requests).toHaveLength(0);
    });

    it("a connection reset after the request arrived is final and not resent", async () => {
      aggregator.answer = () => "reset";
      const [result] = await connector().submit([smsRow()]);
      expect(result).toMatchObject({ ok: false, retryable: false, code: "unknown_outcome" });
      // Bounded wait for what must not happen: a resend by the HTTP client behind the result.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(aggregator.requests).toHaveLength(1);
    });

    it("a time-out after the request was written is final and not resent", async () => {
      aggregator.answer = () => "hang";
      const started = performance.now();
      const [result] = await connector({ timeout_ms: 300 }).submit([smsRow()]);
      const elapsed = performance.now() - started;
      expect(result).toMatchObject({ ok: false, retryable: false, code: "timeout" });
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(5_000);
      // Bounded wait for what must not happen: a resend by the HTTP client behind the result.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(aggregator.requests).toHaveLength(1);
    });

    it("a slow answer inside the deadline is accepted", async () => {
      aggregator.answer = () => ({ status: 200, json: { data: { message_id: "slow-1" } }, delayMs: 150 });
      expect(await connector({ timeout_ms: 3_000 }).submit([smsRow()])).toEqual([{ ok: true, upstreamId: "slow-1" }]);
    });
  });

  describe("pool, rate and window", () => {
    it("reuses at most max_connections keep-alive connections", async () => {
      const before = aggregator.connections;
      const rows = Array.from({ length: 30 }, (_, n) => smsRow({}, n));
      const results = await connector({ max_connections: 2 }).submit(rows);
      expect(results.every((r) => r.ok)).toBe(true);
      expect(aggregator.connections - before).toBeLessThanOrEqual(2);
    });

    it("never sends faster than rate_per_second", async () => {
      // 20/s with a bucket of 2: by t ms into the batch at most 2 + t / 50 requests have left,
      // so the twelfth leaves at 500 ms or later. Load can only delay arrivals, never advance them.
      const rows = Array.from({ length: 12 }, (_, n) => smsRow({}, n));
      const c = connector({ rate_per_second: 20, max_connections: 4 }, 10_000);
      const started = performance.now();
      const results = await c.submit(rows);
      expect(results.every((r) => r.ok)).toBe(true);
      const offsets = aggregator.requests.map((r) => r.at - started).sort((a, b) => a - b);
      expect(offsets).toHaveLength(12);
      expect(offsets.at(-1)!).toBeGreaterThanOrEqual(495);
      expect(offsets.filter((t) => t <= 250).length).toBeLessThanOrEqual(8);
    });

    it("messages whose turn comes after the start window are queued again, not sent", async () => {
      // 5/s with a 500 ms window: the first send and about two more fit; the rest wait for the next round.
      const rows = Array.from({ length: 10 }, (_, n) => smsRow({}, n));
      const results = await connector({ rate_per_second: 5, max_connections: 2 }, 500).submit(rows);
      const sent = results.filter((r) => r.ok).length;
      const deferred = results.filter((r) => !r.ok && r.retryable && r.code === "deferred").length;
      expect(sent + deferred).toBe(10);
      expect(sent).toBeGreaterThanOrEqual(1);
      expect(sent).toBeLessThanOrEqual(4);
      expect(aggregator.requests).toHaveLength(sent);
    });
  });
});
