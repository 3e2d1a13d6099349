// The console's files at `/`: a page's URL opened directly answers index.html, but never in
// place of an API path, an API family's unknown path or a missing file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { call, useTestGateway } from "../../helpers/gateway.js";

const dir = mkdtempSync(join(tmpdir(), "sb-console-"));
mkdirSync(join(dir, "assets"));
const INDEX = '<!doctype html><title>Switchboard</title><script type="module" src="/assets/index-abc123.js"></script>';
writeFileSync(join(dir, "index.html"), INDEX);
writeFileSync(join(dir, "assets", "index-abc123.js"), "console.log('console');");
writeFileSync(join(dir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HTML = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

describeEachEngine("console pages", (engine) => {
  const gateway = useTestGateway(engine, { consoleDir: dir });

  it("serves index.html at / and at any page of the console, with the page's security headers", async () => {
    const t = gateway();
    for (const path of [
      "/",
      "/index.html",
      "/messages/q01M8ABC",
      "/operator/accounts?search=acme",
      "/settings/keys",
      "/Send",
    ]) {
      const page = await call(t, "GET", path, { headers: HTML });
      expect(page.status, path).toBe(200);
      expect(page.text).toBe(INDEX);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.headers.get("cache-control")).toBe("no-cache");
      expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      // Issue 22, point 10: the usual set on every HTML answer.
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    }
  });

  it("serves the built files, hashed ones cached for good", async () => {
    const t = gateway();
    const script = await call(t, "GET", "/assets/index-abc123.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const icon = await call(t, "GET", "/favicon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("cache-control")).toBe("no-cache");
  });

  it("never answers index.html in place of an API: its routes, its unknown paths, a missing file", async () => {
    const t = gateway();
    expect((await call(t, "GET", "/healthz", { headers: HTML })).body).toEqual({ status: "ok" });
    expect((await call(t, "GET", "/metrics", { headers: HTML })).text).toContain("# HELP");
    expect((await call(t, "GET", "/docs/json", { headers: HTML })).body.openapi).toMatch(/^3\./);
    const v2 = await call(t, "GET", "/api/v2/no-such-thing", { headers: HTML });
    expect(v2.status).toBe(404);
    expect(v2.body).toMatchObject({ status: "error", error: { code: "not_found" } });
    const legacy = await call(t, "GET", "/httpapi/no-such-thing", { headers: HTML });
    expect(legacy.status).toBe(404);
    expect(legacy.headers.get("content-type")).toMatch(/^text\/plain/);
    for (const path of ["/admin/api/nothing", "/webhooks/nothing", "/console/nothing", "/assets/missing.js", "/e/x"]) {
      const answer = await call(t, "GET", path, { headers: HTML });
      expect(answer.status, path).toBe(404);
      expect(answer.body.error.code, path).toBe("not_found");
    }
    // The WhatsApp callback and the console's own API keep their routes.
    expect((await call(t, "GET", "/webhooks/whatsapp", { headers: HTML })).status).not.toBe(200);
    expect((await call(t, "GET", "/console/session", { headers: HTML })).status).toBe(401);
  });

  it("keeps the JSON 404 for a client that does not ask for a page, and for other methods", async () => {
    const t = gateway();
    const plain = await call(t, "GET", "/messages");
    expect(plain.status).toBe(404);
    expect(plain.body.error.code).toBe("not_found");
    const post = await call(t, "POST", "/messages", { headers: HTML, json: {} });
    expect(post.status).toBe(404);
  });
});
