// Delivery reports of http-sms aggregators: parseDlr on each callback shape (GET query, form
// POST, JSON POST), final and intermediate statuses, the shared secret and the HMAC; then the
// route over real HTTP, called back by the fake aggregator after a real send.
import { createHmac } from "node:crypto";
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type DlrRequest,
  type HttpSmsConfig,
  HttpSmsConnector,
  parseDlr,
  registerHttpSmsDlrRoute,
} from "../../../src/delivery/carriers/http-sms/index.js";
import type { DeliveryReport } from "../../../src/domain/messages/index.js";
import { FakeAggregator } from "./fake-aggregator.js";
import { aggregatorConfig, smsRow } from "./http-sms-helpers.js";

const NOW = 1_763_800_000_000;
const HMAC_KEY = "hmac-key-0123456789";

const queryDlr: HttpSmsConfig["dlr"] = {
  method: "GET",
  source: "query",
  id_field: "msgid",
  status_field: "status",
  delivered_values: ["DELIVRD"],
  failed_values: ["UNDELIV", "EXPIRED", "REJECTD"],
  error_code_field: "err",
};
const jsonDlr: HttpSmsConfig["dlr"] = {
  method: "POST",
  source: "json",
  id_field: "data.0.message_id",
  status_field: "data.0.status",
  delivered_values: ["delivered"],
  failed_values: ["failed"],
  error_code_field: "data.0.error.code",
  secret: { type: "hmac_sha256", header: "X-Signature", secret: HMAC_KEY },
};

function config(dlr: HttpSmsConfig["dlr"]): HttpSmsConfig {
  return aggregatorConfig("http://127.0.0.1:9", { dlr });
}

function get(query: Record<string, string>, headers: Record<string, string> = {}): DlrRequest {
  return { method: "GET", address: "127.0.0.1", query, headers, rawBody: Buffer.alloc(0) };
}

function post(body: string, headers: Record<string, string> = {}): DlrRequest {
  return { method: "POST", address: "127.0.0.1", query: {}, headers, rawBody: Buffer.from(body) };
}

const sign = (body: string, key = HMAC_KEY) => createHmac("sha256", key).update(body).digest("hex");

describe("parseDlr", () => {
  it("GET query: delivered, failed with its error code, intermediate ignored", () => {
    const c = config(queryDlr);
    expect(parseDlr(c, get({ msgid: "up-1", status: "DELIVRD", err: "000" }), NOW)).toEqual({
      ok: true,
      report: { connector: "agg", upstreamId: "up-1", status: "delivered", at: NOW },
    });
    expect(parseDlr(c, get({ msgid: "up-2", status: "UNDELIV", err: "001" }), NOW)).toEqual({
      ok: true,
      report: {
        connector: "agg",
        upstreamId: "up-2",
        status: "failed",
        at: NOW,
        code: "001",
        message: "agg reported UNDELIV with error 001: the carrier did not deliver the message.",
      },
    });
    expect(parseDlr(c, get({ msgid: "up-3", status: "ACCEPTD" }), NOW)).toEqual({ ok: true, report: null });
  });

  it("refuses a NUL in the id, status or error code, which no store can keep", () => {
    const c = config(queryDlr);
    const queries: Record<string, string>[] = [
      { msgid: "up-1\u0000", status: "DELIVRD" },
      { msgid: "up-1", status: "DELIV\u0000RD" },
      { msgid: "up-1", status: "UNDELIV", err: "\u0000" },
    ];
    for (const query of queries) {
      expect(parseDlr(c, get(query), NOW)).toMatchObject({
        ok: false,
        status: 400,
        message: expect.stringContaining("NUL"),
      });
    }
  });

  it("form POST", () => {
    const c = config({ ...queryDlr, method: "POST", source: "form" });
    expect(parseDlr(c, post("msgid=up%2F9&status=EXPIRED"), NOW)).toEqual({
      ok: true,
      report: {
        connector: "agg",
        upstreamId: "up/9",
        status: "failed",
        at: NOW,
        code: "EXPIRED",
        message: "agg reported EXPIRED: the carrier did not deliver the message.",
      },
    });
  });

  it("JSON POST with dot paths, signed", () => {
    const body = JSON.stringify({ data: [{ message_id: 778899, status: "failed", error: { code: "DND" } }] });
    expect(parseDlr(config(jsonDlr), post(body, { "x-signature": sign(body) }), NOW)).toEqual({
      ok: true,
      report: {
        connector: "agg",
        upstreamId: "778899",
        status: "failed",
        at: NOW,
        code: "DND",
        message: "agg reported failed with error DND: the carrier did not deliver the message.",
      },
    });
  });

  it("400 for a callback it cannot read: no id, no status, not JSON, wrong method, no dlr configured", () => {
    const c = config(queryDlr);
    expect(parseDlr(c, get({ status: "DELIVRD" }))).toMatchObject({ ok: false, status: 400 });
    expect(parseDlr(c, get({ msgid: "up-1" }))).toMatchObject({ ok: false, status: 400 });
    expect(parseDlr(c, post("msgid=up-1&status=DELIVRD"))).toMatchObject({ ok: false, status: 400 });
    const unsigned = config({ ...jsonDlr, secret: undefined });
    expect(parseDlr(unsigned, post("{not json"))).toMatchObject({
      ok: false,
      status: 400,
      message: "The body is not JSON.",
    });
    expect(parseDlr(config(undefined), get({ msgid: "up-1", status: "DELIVRD" }))).toMatchObject({
      ok: false,
      status: 400,
    });
  });

  describe("shared secret in a header", () => {
    const c = config({ ...queryDlr, secret: { type: "header", header: "X-Dlr-Token", value: "s3cret-token" } });
    const fields = { msgid: "up-1", status: "DELIVRD" };
    it("valid", () => {
      expect(parseDlr(c, get(fields, { "x-dlr-token": "s3cret-token" }))).toMatchObject({ ok: true });
    });
    it("forged, a prefix of it, or missing: 401", () => {
      expect(parseDlr(c, get(fields, { "x-dlr-token": "s3cret-tokem" }))).toMatchObject({ ok: false, status: 401 });
      expect(parseDlr(c, get(fields, { "x-dlr-token": "s3cret" }))).toMatchObject({ ok: false, status: 401 });
      expect(parseDlr(c, get(fields))).toMatchObject({ ok: false, status: 401 });
    });
  });

  describe("HMAC-SHA256 of the raw body", () => {
    const body = JSON.stringify({ data: [{ message_id: "up-1", status: "delivered" }] });
    it("valid, also as sha256=<HEX>", () => {
      expect(parseDlr(config(jsonDlr), post(body, { "x-signature": sign(body) }))).toMatchObject({ ok: true });
      const prefixed = `sha256=${sign(body).toUpperCase()}`;
      expect(parseDlr(config(jsonDlr), post(body, { "x-signature": prefixed }))).toMatchObject({ ok: true });
    });
    it("forged: another key, or the body changed after signing, or the same JSON re-serialised: 401", () => {
      const c = config(jsonDlr);
      expect(parseDlr(c, post(body, { "x-signature": sign(body, "another-key-000") }))).toMatchObject({ status: 401 });
      const tampered = body.replace("up-1", "up-2");
      expect(parseDlr(c, post(tampered, { "x-signature": sign(body) }))).toMatchObject({ status: 401 });
      const spaced = JSON.stringify(JSON.parse(body), null, 1);
      expect(parseDlr(c, post(spaced, { "x-signature": sign(body) }))).toMatchObject({ status: 401 });
    });
    it("missing: 401", () => {
      expect(parseDlr(config(jsonDlr), post(body))).toMatchObject({ ok: false, status: 401 });
    });
  });
});

describe("http-sms DLR route over real HTTP", () => {
  let app: FastifyInstance;
  let gatewayUrl: string;
  let aggregator: FakeAggregator;
  let sinkError: Error | undefined;
  const received: DeliveryReport[] = [];
  const configs = new Map<string, HttpSmsConfig>();
  const connectors: HttpSmsConnector[] = [];

  beforeAll(async () => {
    aggregator = await new FakeAggregator().start();
    configs.set("agg", aggregatorConfig(aggregator.url, { dlr: queryDlr }));
    configs.set("signed", aggregatorConfig(aggregator.url, { name: "signed", dlr: jsonDlr }));
    app = Fastify({ logger: false });
    // Another route with the default JSON parser: the DLR route's raw-body parser must not leak.
    app.post("/echo", async (request) => request.body);
    registerHttpSmsDlrRoute(app, "/carriers/http-sms/:name/dlr", configs, async (reports) => {
      if (sinkError) throw sinkError;
      received.push(...reports);
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    gatewayUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    for (const c of connectors.splice(0)) await c.stop();
    received.length = 0;
    sinkError = undefined;
    aggregator.reset();
  });
  afterAll(async () => {
    await app.close();
    await aggregator.stop();
  });

  it("a send, then the aggregator calls back on {callback_url} with the upstream id: one delivered report", async () => {
    const connector = new HttpSmsConnector(configs.get("agg")!, {
      callbackUrl: `${gatewayUrl}/carriers/http-sms/agg/dlr`,
    });
    connectors.push(connector);
    const [result] = await connector.submit([smsRow()]);
    expect(result).toEqual({ ok: true, upstreamId: "up-1" });
    const dlrUrl = aggregator.requests[0]!.query.get("dlr_url")!;
    expect(await aggregator.callback(dlrUrl, { method: "GET", query: { msgid: "up-1", status: "ACCEPTD" } })).toEqual({
      status: 200,
      text: "OK",
    });
    expect(received).toEqual([]);
    const answer = await aggregator.callback(dlrUrl, {
      method: "GET",
      query: { msgid: "up-1", status: "DELIVRD", err: "000" },
    });
    expect(answer.status).toBe(200);
    expect(received).toEqual([{ connector: "agg", upstreamId: "up-1", status: "delivered", at: expect.any(Number) }]);
  });

  it("a signed JSON callback is checked over the raw bytes it came with", async () => {
    const url = `${gatewayUrl}/carriers/http-sms/signed/dlr`;
    const json = { data: [{ message_id: "s-1", status: "failed", error: { code: "NO_ROUTE" } }] };
    const valid = await aggregator.callback(url, {
      method: "POST",
      json,
      hmac: { header: "X-Signature", secret: HMAC_KEY },
    });
    expect(valid.status).toBe(200);
    expect(received).toEqual([
      expect.objectContaining({ connector: "signed", upstreamId: "s-1", status: "failed", code: "NO_ROUTE" }),
    ]);
    const forged = await aggregator.callback(url, {
      method: "POST",
      json,
      hmac: { header: "X-Signature", secret: "not-the-key-000" },
    });
    expect(forged.status).toBe(401);
    const missing = await aggregator.callback(url, { method: "POST", json });
    expect(missing.status).toBe(401);
    expect(received).toHaveLength(1);
  });

  it("404 for an unknown connector, 400 for a callback without the id", async () => {
    const unknown = await aggregator.callback(`${gatewayUrl}/carriers/http-sms/nope/dlr`, {
      method: "GET",
      query: { msgid: "x", status: "DELIVRD" },
    });
    expect(unknown.status).toBe(404);
    const bad = await aggregator.callback(`${gatewayUrl}/carriers/http-sms/agg/dlr`, {
      method: "GET",
      query: { status: "DELIVRD" },
    });
    expect(bad.status).toBe(400);
    expect(received).toEqual([]);
  });

  it("a sink that fails answers 500, so the aggregator calls again", async () => {
    sinkError = new Error("store down");
    const url = `${gatewayUrl}/carriers/http-sms/agg/dlr`;
    const answer = await aggregator.callback(url, { method: "GET", query: { msgid: "up-5", status: "DELIVRD" } });
    expect(answer.status).toBe(500);
  });

  it("other routes keep their JSON parser", async () => {
    const response = await fetch(`${gatewayUrl}/echo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ a: 1 }),
    });
    expect(await response.json()).toEqual({ a: 1 });
  });
});
