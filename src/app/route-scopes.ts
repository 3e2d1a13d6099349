// Which scope an API key needs for each route of the keyed families (issue 42, item 3): the one
// table, set on each route as it is added (`keyScope`, checked by auth/ admitCaller), documented
// as it stands in docs/api.md (Key scopes; test/app/route-scopes.test.ts holds both to it).
import type { FastifyInstance } from "fastify";
import type { KeyScope, RouteScope } from "../domain/auth/index.js";

/**
 * Routes by scope, as `METHODS url` as registered. `send`: what sends or cancels a send;
 * `read`: what reads; `manage`: what changes settings and lists; `billing`: what reads or moves money.
 */
export const ROUTE_SCOPES: Record<KeyScope, readonly string[]> = {
  send: [
    "GET,POST /httpapi/send",
    "GET,POST /api/secure_api/httpapi/send",
    "GET,POST /xmlapi/send",
    "GET,POST /httpemailapi/v1/send",
    "GET,POST /httpemailapiv2/send",
    "GET,POST /httpemailapi/send",
    "GET /voicecall/v1/send",
    "POST /voicecall/v1/post/send",
    "POST /voicecall/v1/jpost/send",
    "GET,POST /api/v2/sms/send",
    "POST /api/v2/sms/bulk",
    "POST /api/v2/sms/bulk/preview",
    "POST /api/v2/sms/schedule",
    "DELETE /api/v2/sms/schedule/:id",
    "POST /api/v2/bulk-jobs/:id/cancel",
    "POST /api/v2/send",
    "POST /api/v2/email/send",
    "POST /api/v2/voice/calls",
    "POST /api/v2/whatsapp/send",
    "POST /api/v2/verify",
    "POST /api/v2/verify/:id/check",
    "POST /api/v2/verify/:id/resend",
    "POST /api/v2/verify/:id/cancel",
  ],
  read: [
    "GET,POST /httpapi/dlr",
    "GET,POST /api/secure_api/httpapi/dlr",
    "GET,POST /httpapi/templates",
    "GET,POST /api/secure_api/httpapi/templates",
    "GET,POST /httpapi/accountstatus",
    "GET,POST /api/secure_api/httpapi/accountstatus",
    "GET,POST /httpapi/mis",
    "GET,POST /api/secure_api/httpapi/mis",
    "GET /api/v2/account/status",
    "GET /api/v2/analytics/delivery",
    "GET /api/v2/audit",
    "GET /api/v2/audit/export",
    "GET /api/v2/bulk-jobs",
    "GET /api/v2/bulk-jobs/:id",
    "GET /api/v2/dlt",
    "GET /api/v2/email/domains",
    "GET /api/v2/email/status/:broadcastId",
    "GET /api/v2/email/templates",
    "GET /api/v2/email/templates/:id",
    "GET /api/v2/groups",
    "GET /api/v2/groups/:id/contacts",
    "GET /api/v2/inbound",
    "GET /api/v2/keys",
    "GET /api/v2/keywords",
    "GET /api/v2/keywords/:id",
    "GET /api/v2/messages",
    "GET /api/v2/messages/:id",
    "GET /api/v2/messages/export",
    "GET /api/v2/messages/per-minute",
    "GET /api/v2/messages/summary",
    "GET /api/v2/refusals",
    "GET /api/v2/reports/:messageId",
    "GET /api/v2/send/:chain_id",
    "GET /api/v2/sender-id-requests",
    "GET /api/v2/sender-ids",
    "GET /api/v2/sms/status/:id",
    "GET /api/v2/subaccounts",
    "GET /api/v2/templates",
    "GET /api/v2/templates/:id",
    "GET /api/v2/verify",
    "GET /api/v2/verify/:id",
    "GET /api/v2/verify/analytics",
    "GET /api/v2/verify/settings",
    "GET /api/v2/voice/caller-ids",
    "GET /api/v2/whatsapp/account",
    "GET /api/v2/whatsapp/status/:id",
    "GET /api/v2/whatsapp/templates",
  ],
  manage: [
    "GET,POST /httpapi/addtemplate",
    "GET,POST /api/secure_api/httpapi/addtemplate",
    "POST /api/v2/dlt/entities",
    "POST /api/v2/email/domains",
    "DELETE /api/v2/email/domains/:domain",
    "POST /api/v2/email/templates",
    "PUT /api/v2/email/templates/:id",
    "DELETE /api/v2/email/templates/:id",
    "POST /api/v2/groups",
    "DELETE /api/v2/groups/:id",
    "POST /api/v2/keys",
    "DELETE /api/v2/keys/:id",
    "POST /api/v2/keywords",
    "POST /api/v2/sender-id-requests",
    "POST /api/v2/subaccounts",
    "POST /api/v2/subaccounts/:username/keys",
    "POST /api/v2/templates",
    "POST /api/v2/voice/caller-ids",
  ],
  billing: [
    "GET,POST /api/getcredits",
    "GET /api/v2/balance",
    "GET /api/v2/credits",
    "GET /api/v2/credits/export",
    "GET /api/v2/credits/history",
    "POST /api/v2/credits/transfer",
    "GET /api/v2/pricing",
    "POST /api/v2/subaccounts/:username/credits",
  ],
};

/** Where API keys are taken: a route under these, unless public, needs a row of the table. */
const KEYED_PREFIXES = [
  "/api/v2/",
  "/admin/api/",
  "/httpapi/",
  "/api/secure_api/",
  "/api/getcredits",
  "/xmlapi/",
  "/httpemailapi",
  "/voicecall/",
];

/** `METHOD url` → scope, from the table. */
const SCOPE_OF = new Map<string, KeyScope>();
for (const [scope, routes] of Object.entries(ROUTE_SCOPES) as [KeyScope, readonly string[]][]) {
  for (const route of routes) {
    const [methods, url] = route.split(" ") as [string, string];
    for (const method of methods.split(",")) SCOPE_OF.set(`${method} ${url}`, scope);
  }
}

declare module "fastify" {
  interface FastifyInstance {
    /** The keyed routes as added, `METHOD url` → the scope set on them (`all`: no row in the table). */
    keyedRoutes: Map<string, RouteScope>;
  }
}

/**
 * Sets each keyed route's `keyScope` from the table as the route is added (an onRoute hook on the
 * server, so it sees every family's routes). A route without a row needs every scope: only a key
 * made without a list opens it, and test/app/route-scopes.test.ts fails until the row is written.
 */
export function assignRouteScopes(app: FastifyInstance): void {
  const keyed = new Map<string, RouteScope>();
  app.decorate("keyedRoutes", keyed);
  app.addHook("onRoute", (route) => {
    if (route.config?.public || !KEYED_PREFIXES.some((prefix) => route.url.startsWith(prefix))) return;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== "HEAD");
    const scopes = methods.map((method) => SCOPE_OF.get(`${method} ${route.url}`) ?? "all");
    for (const [at, method] of methods.entries()) keyed.set(`${method} ${route.url}`, scopes[at]!);
    // One handler for several methods has one scope: the table gives them the same.
    const scope = scopes.every((s) => s === scopes[0]) ? scopes[0]! : "all";
    route.config = { ...route.config, keyScope: scope };
  });
}
