// The JSON discovery documents at /api/v2, /api/secure_api and /httpapi. They list the
// routes actually registered under each prefix, so they stay true as endpoints are added.
import type { FastifyInstance, RouteOptions } from "fastify";

interface Endpoint {
  method: string;
  path: string;
  description?: string;
}

const FAMILIES = [
  {
    root: "/api/v2",
    prefixes: ["/api/v2/"],
    name: "Advanced API v2",
    auth: "API key: Authorization: Bearer <key>, X-API-Key: <key>, or api_key in the query or JSON body.",
  },
  {
    root: "/api/secure_api",
    prefixes: ["/api/secure_api/", "/api/getcredits"],
    name: "Legacy HTTP API (secure prefix)",
    auth: "username and password, or api_key / apikey, in the query or form body.",
  },
  {
    root: "/httpapi",
    prefixes: ["/httpapi/", "/api/getcredits"],
    name: "Legacy HTTP API",
    auth: "username and password, or api_key / apikey, in the query or form body.",
  },
] as const;

/** Must be registered before the routes it lists. */
export function collectDiscovery(app: FastifyInstance): void {
  const endpoints = new Map<string, Endpoint[]>(FAMILIES.map((f) => [f.root, []]));

  app.addHook("onRoute", (route: RouteOptions) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== "HEAD");
    for (const family of FAMILIES) {
      if (!family.prefixes.some((p) => route.url.startsWith(p))) continue;
      const summary = (route.schema as { summary?: string } | undefined)?.summary;
      for (const method of methods) {
        endpoints.get(family.root)?.push({ method, path: route.url, ...(summary ? { description: summary } : {}) });
      }
    }
  });

  for (const family of FAMILIES) {
    app.get(family.root, { schema: { hide: true } }, async () => ({
      service: "Switchboard",
      api: family.name,
      authentication: family.auth,
      documentation: "/docs",
      ...(family.root === "/api/v2" ? { openapi: "/api/v2/openapi.json" } : {}),
      endpoints: [...(endpoints.get(family.root) ?? [])].sort(
        (a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
      ),
    }));
  }
}
