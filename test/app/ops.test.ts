import { expect, it } from "vitest";
import { loadConfig } from "../../src/base/runtime/config.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../helpers/gateway.js";

describeEachEngine("operations endpoints and API documents", (engine) => {
  const gateway = useTestGateway(engine);

  it("answers /healthz and /readyz (the database answers)", async () => {
    const t = gateway();
    const health = await call(t, "GET", "/healthz");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok" });
    const ready = await call(t, "GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ready", database: "ok" });
  });

  it("serves Prometheus metrics, including the request it just answered", async () => {
    const t = gateway();
    await call(t, "GET", "/healthz");
    const metrics = await call(t, "GET", "/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(metrics.text).toMatch(/^# TYPE switchboard_http_request_duration_seconds histogram$/m);
    expect(metrics.text).toMatch(
      /^switchboard_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} [1-9]/m,
    );
    expect(metrics.text).toMatch(/^switchboard_process_cpu_user_seconds_total /m);
    expect(metrics.text).toMatch(/^# TYPE switchboard_messages_accepted_total counter$/m);
  });

  it("publishes OpenAPI 3.1 for v2, listing /api/v2/balance with its security schemes", async () => {
    const t = gateway();
    const doc = await call(t, "GET", "/api/v2/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    expect(doc.body.paths["/api/v2/balance"]?.get).toBeDefined();
    expect(doc.body.paths["/api/v2/sender-ids"]?.get).toBeDefined();
    expect(Object.keys(doc.body.components.securitySchemes)).toEqual(
      expect.arrayContaining(["bearer", "apiKeyHeader", "apiKeyQuery"]),
    );
    // Only the v2 family belongs in this document.
    for (const path of Object.keys(doc.body.paths)) expect(path).toMatch(/^\/api\/v2\//);
  });

  it("serves Swagger UI at /docs", async () => {
    const t = gateway();
    const docs = await fetch(`${t.url}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toMatch(/text\/html/);
    const html = await docs.text();
    expect(html).toMatch(/swagger-ui/i);
  });

  it("lists each family's endpoints in its discovery document", async () => {
    const t = gateway();
    const v2 = await call(t, "GET", "/api/v2");
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ service: "Switchboard", openapi: "/api/v2/openapi.json", documentation: "/docs" });
    expect(v2.body.endpoints).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ method: "GET", path: "/api/v2/balance" }),
        expect.objectContaining({ method: "GET", path: "/api/v2/sender-ids" }),
      ]),
    );
    for (const root of ["/httpapi", "/api/secure_api"]) {
      const legacy = await call(t, "GET", root);
      expect(legacy.status).toBe(200);
      expect(legacy.body.authentication).toMatch(/username and password/);
      expect(legacy.body.endpoints).toEqual(
        expect.arrayContaining([
          { method: "GET", path: "/api/getcredits", description: expect.any(String) },
          { method: "POST", path: "/api/getcredits", description: expect.any(String) },
        ]),
      );
      // A family's document never lists another family's routes.
      for (const endpoint of legacy.body.endpoints) expect(endpoint.path).not.toMatch(/^\/(api\/v2|admin)\//);
    }
  });

  it("answers an unknown /api/v2 path with 404 in the v2 envelope", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const sms = await call(t, "GET", "/api/v2/sms/no-such-call", { headers: { "x-api-key": account.apiKey } });
    expect(sms.status).toBe(404);
    expect(sms.body).toMatchObject({ success: false, error: { code: "not_found" } });
    expect(sms.body.message).toContain("/api/v2/sms/no-such-call");
    const resource = await call(t, "GET", "/api/v2/no-such-resource");
    expect(resource.status).toBe(404);
    expect(resource.body).toMatchObject({ status: "error", error: { code: "not_found" } });
  });

  it("answers malformed JSON with 400 invalid_json, never 500, and an empty body with the missing field", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const headers = { authorization: `Bearer ${operator.apiKey}`, "content-type": "application/json" };
    for (const body of ['{"username": "x",', "[1, 2"]) {
      const response = await call(t, "POST", "/admin/api/accounts", { headers, body });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ status: "error", error: { code: "invalid_json" } });
    }
    // An empty body is no body (test/base/http/client-habits.test.ts): read as {}, so a field is missing.
    const empty = await call(t, "POST", "/admin/api/accounts", { headers, body: "" });
    expect(empty.status, empty.text).toBe(400);
    expect(empty.body).toMatchObject({ status: "error", error: { code: "invalid_request" } });
    expect(empty.body.message).toMatch(/^Missing required field "\w+" in body\.$/);
  });

  it("echoes a caller's x-request-id, makes one up otherwise, and quotes it in errors", async () => {
    const t = gateway();
    const given = await call(t, "GET", "/healthz", { headers: { "x-request-id": "trace-42.a_b" } });
    expect(given.headers.get("x-request-id")).toBe("trace-42.a_b");
    const made = await call(t, "GET", "/healthz");
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const failed = await call(t, "GET", "/api/v2/balance", { headers: { "x-request-id": "trace-43" } });
    expect(failed.status).toBe(401);
    expect(failed.headers.get("x-request-id")).toBe("trace-43");
    expect(failed.body.error.request_id).toBe("trace-43");
  });
});

describeEachEngine("/metrics behind METRICS_TOKEN", (engine) => {
  const TOKEN = "metrics-token-0123456789abcdef";
  const gateway = useTestGateway(engine, { env: { METRICS_TOKEN: TOKEN } });

  it("answers 401 without the token or with another, and the metrics with it; probes stay open", async () => {
    const t = gateway();
    for (const authorization of [undefined, "Bearer wrong-token-0123456789abcdef", `Bearer ${TOKEN}x`, TOKEN]) {
      const refused = await call(t, "GET", "/metrics", authorization ? { headers: { authorization } } : {});
      expect(refused.status, String(authorization)).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(refused.body).toMatchObject({ status: "error", error: { code: "unauthorized" } });
      expect(refused.text).not.toContain("switchboard_");
    }
    const scraped = await call(t, "GET", "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.text).toMatch(/^# TYPE switchboard_messages_accepted_total counter$/m);
    // A load balancer's probes carry no token.
    expect((await call(t, "GET", "/healthz")).status).toBe(200);
    expect((await call(t, "GET", "/readyz")).status).toBe(200);
  });

  it("refuses a token too short to be secret at start, without quoting it", () => {
    expect(() => loadConfig({ DATABASE_URL: "sqlite::memory:", METRICS_TOKEN: "short-secret" })).toThrow(
      /METRICS_TOKEN must be 16 to 256 visible ASCII characters .*\(got "\(hidden\)"\)/,
    );
  });
});
