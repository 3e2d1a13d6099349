// The voice-http connector on its own against the fake provider: which failures are retried
// (only those that placed no call), the keep-alive pool, and the start window that keeps a
// batch inside the dispatcher's lease.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/app/gateway.js";
import type { MessageRow } from "../../../src/base/store/schema.js";
import { VoiceHttpConnector, type VoiceHttpOptions } from "../../../src/channels/voice/http-connector.js";
import { messageRow } from "../../helpers/message-row.js";
import { FakeCallProvider } from "./fake-provider.js";

const logger = createLogger({ logLevel: "silent" });

/** A claimed call as the dispatcher hands it over (the columns the connector reads, the rest empty). */
function callRow(recipient: string, n = 0): MessageRow {
  return messageRow({
    id: `q01TESTCALL${String(n).padStart(15, "0")}`,
    channel: "voice",
    broadcast_id: `1_20261122_${String(n).padStart(6, "0")}`,
    recipient,
    sender: "+918047110000",
    body: "Your code is 1 2 3 4.",
    route: "voice",
    wallet: "voice",
    meta: JSON.stringify({ units: 1, speech_seconds: 2 }),
  });
}

describe("voice-http connector", () => {
  let provider: FakeCallProvider;
  const connectors: VoiceHttpConnector[] = [];

  function connector(changes: Partial<VoiceHttpOptions> = {}): VoiceHttpConnector {
    const created = new VoiceHttpConnector(
      {
        baseUrl: provider.url,
        accountSid: provider.accountSid,
        authToken: provider.authToken,
        statusCallbackUrl: "https://switchboard.example.test/voicecall/v1/status-callback",
        timeoutMs: 1_000,
        concurrency: 4,
        say: { language: "en-IN" },
        ...changes,
      },
      logger,
    );
    connectors.push(created);
    return created;
  }

  beforeAll(async () => {
    provider = await new FakeCallProvider().start();
  });
  afterEach(async () => {
    for (const c of connectors.splice(0)) await c.stop();
    provider.answer = (request) => ({ status: 201, body: { sid: request.sid, status: "queued" } });
  });
  afterAll(async () => provider.stop());

  it("answers the provider's call sid for each message, in order", async () => {
    const results = await connector().submit([callRow("9876500001", 1), callRow("+447911123456", 2)]);
    const sids = provider.calls.slice(-2).map((c) => [c.form.get("To"), c.sid]);
    expect(sids.map(([to]) => to).sort()).toEqual(["+447911123456", "+919876500001"]);
    const byTo = new Map(sids.map(([to, sid]) => [to, sid]));
    expect(results).toEqual([
      { ok: true, upstreamId: byTo.get("+919876500001") },
      { ok: true, upstreamId: byTo.get("+447911123456") },
    ]);
  });

  it("retries 429, 5xx (an HTML error page too) and connections that never opened; not 4xx or an answer without a sid", async () => {
    const answers: Record<string, { status: number; body?: unknown }> = {
      "+919876500011": { status: 429, body: { code: 20429, message: "Too Many Requests" } },
      "+919876500012": { status: 502, body: "<html>Bad gateway</html>" },
      "+919876500013": { status: 400, body: { code: 21211, message: "Invalid 'To' Phone Number" } },
      "+919876500014": { status: 201, body: { status: "queued" } },
    };
    provider.answer = (request) => answers[request.form.get("To") ?? ""] ?? { status: 500 };
    const results = await connector().submit(Object.keys(answers).map((to, n) => callRow(to, n)));
    expect(results).toEqual([
      { ok: false, retryable: true, code: "throttled", message: "HTTP 429: Too Many Requests (provider code 20429)" },
      { ok: false, retryable: true, code: "upstream_unavailable", message: "HTTP 502" },
      {
        ok: false,
        retryable: false,
        code: "rejected",
        message: "HTTP 400: Invalid 'To' Phone Number (provider code 21211)",
      },
      { ok: false, retryable: false, code: "bad_response", message: "HTTP 201 without a call sid." },
    ]);

    // Nothing listens on this port: the call was certainly not placed.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const [refused] = await connector({ baseUrl: `http://127.0.0.1:${port}` }).submit([callRow("9876500015")]);
    expect(refused).toMatchObject({ ok: false, retryable: true, code: "connect_failed" });
  });

  // The refusal's text is stored on the call, which the account reads: a provider echoing the
  // auth token (or any credential-shaped text) must not hand it over (issue 22, point 1).
  it("keeps the auth token out of a refusal that echoes it", async () => {
    provider.answer = () => ({
      status: 401,
      body: { message: `Token ${provider.authToken} refused; password=hunter2`, code: 20003 },
    });
    const [refused] = await connector().submit([callRow("9876500031")]);
    expect(refused).toMatchObject({ ok: false, retryable: false, code: "rejected" });
    const message = (refused as { message: string }).message;
    expect(message).toBe("HTTP 401: Token [REDACTED] refused; password=[REDACTED] (provider code 20003)");
  });

  it("does not retry a request that may have reached the provider (time-out, connection cut after sending)", async () => {
    provider.answer = () => "hang";
    const [timedOut] = await connector({ timeoutMs: 200 }).submit([callRow("9876500021")]);
    expect(timedOut).toMatchObject({ ok: false, retryable: false, code: "timeout" });

    const cutting = http.createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => cutting.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(cutting.address() as AddressInfo).port}`;
      const [cut] = await connector({ baseUrl: base }).submit([callRow("9876500022")]);
      expect(cut).toMatchObject({ ok: false, retryable: false, code: "unknown_outcome" });
    } finally {
      await new Promise<void>((resolve) => cutting.close(() => resolve()));
    }
  });

  it("reuses keep-alive connections, at most `concurrency` at a time", async () => {
    const before = new Set(provider.calls.map((c) => c.socket));
    const voice = connector({ concurrency: 2 });
    for (let round = 0; round < 3; round++) {
      const results = await voice.submit(Array.from({ length: 6 }, (_, n) => callRow(`98765003${round}${n}`, n)));
      expect(results.every((r) => r.ok)).toBe(true);
    }
    const sockets = new Set(provider.calls.slice(-18).map((c) => c.socket));
    expect(sockets.size).toBeLessThanOrEqual(2);
    for (const socket of sockets) expect(before.has(socket)).toBe(false);
  });

  it("starts no request after the start window and gives those messages back to the queue", async () => {
    // A provider whose calls take 150 ms of the connector's clock: with one lane and a 200 ms
    // window, two calls start. The clock moves only with the calls (a real 150 ms wait lost the
    // second call's start to a loaded machine once: it began after 200 ms of real time).
    let clock = 0;
    const delayed = http.createServer((req, res) => {
      req.resume();
      clock += 150;
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ sid: `CA${clock}` }));
    });
    await new Promise<void>((resolve) => delayed.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(delayed.address() as AddressInfo).port}`;
      const results = await connector({ baseUrl: base, concurrency: 1, startWindowMs: 200, now: () => clock }).submit(
        Array.from({ length: 5 }, (_, n) => callRow(`987650040${n}`, n)),
      );
      expect(results.map((r) => (r.ok ? "placed" : r.code))).toEqual([
        "placed",
        "placed",
        "deferred",
        "deferred",
        "deferred",
      ]);
      expect(results[2]).toMatchObject({ retryable: true });
    } finally {
      await new Promise<void>((resolve) => delayed.close(() => resolve()));
    }
  });
});
