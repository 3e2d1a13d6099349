// The documentation page and every other answer carry the usual security headers (issue 22,
// point 10), and Swagger UI's index.html never redirects to itself, through the real server.
import { expect, it } from "vitest";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../helpers/gateway.js";
import { keyOf } from "../helpers/sms.js";

const MAX_HOPS = 5;

/** Follows redirects by hand, at most MAX_HOPS of them; the last answer and the URLs visited. */
async function follow(t: TestGateway, path: string): Promise<{ response: Response; visited: string[] }> {
  const visited = [path];
  let url = new URL(path, t.url);
  for (let hop = 0; ; hop++) {
    const response = await fetch(url, { redirect: "manual" });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || location === null) return { response, visited };
    await response.arrayBuffer();
    if (hop === MAX_HOPS) throw new Error(`more than ${MAX_HOPS} redirects: ${visited.join(" -> ")}`);
    url = new URL(location, url);
    visited.push(`${url.pathname}${url.search}`);
  }
}

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | null): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of (header ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name.toLowerCase(), values);
  }
  return map;
}

function expectPageHeaders(response: Response, where: string) {
  const csp = directives(response.headers.get("content-security-policy"));
  expect(csp.get("frame-ancestors"), where).toEqual(["'none'"]);
  expect(csp.get("script-src"), where).toEqual(["'self'"]);
  expect(csp.get("object-src"), where).toEqual(["'none'"]);
  expect(csp.get("default-src"), where).toEqual(["'self'"]);
  expect(csp.has("upgrade-insecure-requests"), where).toBe(false);
  expect(response.headers.get("x-frame-options"), where).toBe("DENY");
  expect(response.headers.get("x-content-type-options"), where).toBe("nosniff");
  expect(response.headers.get("referrer-policy"), where).toBe("no-referrer");
}

describeEachEngine("security headers and the documentation page", (engine) => {
  const gateway = useTestGateway(engine);

  it("redirects /docs/static/index.html to the page once, whatever follows it", async () => {
    const t = gateway();
    for (const path of [
      "/docs/static/index.html",
      "/docs/static/index.html?x",
      "/docs/static/index.html?x=1&y",
      "/docs/static/index.html/",
      "/DOCS/Static/Index.html?x",
      "/docs/static/index.html#top",
    ]) {
      const { response, visited } = await follow(t, path);
      expect(response.status, visited.join(" -> ")).toBe(200);
      expect(response.headers.get("content-type"), path).toMatch(/^text\/html/);
      expect(await response.text(), path).toMatch(/swagger-ui/);
      expect(visited.length, visited.join(" -> ")).toBe(2);
      expect(visited[1], path).toBe("/docs/");
    }
  });

  it("sends the page's security headers on the documentation, and its policy lets the page load", async () => {
    const t = gateway();
    for (const path of ["/docs", "/docs/", "/docs?x", "/docs/static/oauth2-redirect.html"]) {
      const response = await fetch(`${t.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toMatch(/^text\/html/);
      expectPageHeaders(response, path);
      // Swagger UI sets style attributes as it renders, so its styles may be inline; its scripts may not.
      expect(directives(response.headers.get("content-security-policy")).get("style-src"), path).toEqual([
        "'self'",
        "'unsafe-inline'",
      ]);
      const html = await response.text();
      if (path.startsWith("/docs/static/")) continue;
      // script-src 'self' holds because every script is a file of this server, none inline.
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length, path).toBeGreaterThan(0);
      const files = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
      for (const [, attributes, body] of scripts) {
        expect(attributes, path).toMatch(/\bsrc="/);
        expect(body?.trim(), path).toBe("");
      }
      for (const file of files) {
        const url = new URL(file, `${t.url}${path}`);
        expect(url.origin, file).toBe(new URL(t.url).origin);
        const asset = await fetch(url);
        expect(asset.status, url.pathname).toBe(200);
        expect(asset.headers.get("x-content-type-options"), url.pathname).toBe("nosniff");
        await asset.arrayBuffer();
      }
    }
  });

  it("sends nosniff on every API family's answers, refusals and unknown paths included", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 1 } });
    const answers = [
      await call(t, "GET", "/api/v2/balance", { headers: keyOf(account) }),
      await call(t, "GET", "/api/v2/balance"),
      await call(t, "GET", "/api/v2/no-such-thing"),
      await call(t, "GET", `/api/getcredits?api_key=${account.apiKey}`),
      await call(t, "GET", "/httpapi/send"),
      await call(t, "GET", "/admin/api/accounts"),
      await call(t, "GET", "/healthz"),
      await call(t, "GET", "/metrics"),
      await call(t, "GET", "/api/v2/openapi.json"),
      await call(t, "GET", "/docs/json"),
    ];
    for (const answer of answers) expect(answer.headers.get("x-content-type-options"), answer.text).toBe("nosniff");
    // The API's JSON answers carry no page policy: it would only add bytes to every answer.
    expect(answers[0]?.headers.get("content-security-policy")).toBeNull();
  });
});
