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
    // Legacy, XML, email and voice.
    "GET,POST /httpapi/send",
    "GET,POST /api/secure_api/httpapi/send",
    "GET,POST /xmlapi/send",
    "GET,POST /httpemailapi/v1/send",
    "GET,POST /httpemailapiv2/send",
    "GET,POST /httpemailapi/send",
    "GET /voicecall/v1/send",
    "POST /voicecall/v1/post/send",
    "POST /voicecall/v1/jpost/send",
    // v2 (WhatsApp under /api/v2/whatsapp).
    "POST /api/v2/bulk-jobs/:id/cancel",
    "POST /api/v2/email/send",
    "POST /api/v2/send",
    "POST /api/v2/sms/bulk",
    "POST /api/v2/sms/bulk/preview",
    "POST /api/v2/sms/schedule",
    "DELETE /api/v2/sms/schedule/:id",
    "GET,POST /api/v2/sms/send",
    "POST /api/v2/verify",
    "POST /api/v2/verify/:id/cancel",
    "POST /api/v2/verify/:id/check",
    "POST /api/v2/verify/:id/resend",
    "POST /api/v2/voice/calls",
    "POST /api/v2/whatsapp/send",
  ],
  read: [
    // Legacy, XML, email and voice.
    "GET,POST /httpapi/dlr",
    "GET,POST /api/secure_api/httpapi/dlr",
    "GET,POST /httpapi/templates",
    "GET,POST /api/secure_api/httpapi/templates",
    "GET,POST /httpapi/accountstatus",
    "GET,POST /api/secure_api/httpapi/accountstatus",
    "GET,POST /httpapi/mis",
    "GET,POST /api/secure_api/httpapi/mis",
    // v2 (WhatsApp under /api/v2/whatsapp).
    "GET /api/v2/account/status",
    "GET /api/v2/analytics/delivery",
    "GET /api/v2/audit",
    "GET /api/v2/audit/export",
    "GET /api/v2/bulk-jobs",
    "GET /api/v2/bulk-jobs/:id",
    "GET /api/v2/dlt",
    "GET /api/v2/email/domains",
    "GET /api/v2/email/status/:broadcastId",
    "GET /api/v2/email/suppressions",
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
    "GET /api/v2/smpp/binds",
    "GET /api/v2/sms/status/:id",
    "GET /api/v2/subaccounts",
    "GET /api/v2/templates",
    "GET /api/v2/templates/:id",
    "GET /api/v2/verify",
    "GET /api/v2/verify/:id",
    "GET /api/v2/verify/analytics",
    "GET /api/v2/verify/settings",
    "GET /api/v2/voice/caller-ids",
    "GET /api/v2/webhooks",
    "GET /api/v2/webhooks/deliveries",
    "GET /api/v2/whatsapp/account",
    "GET /api/v2/whatsapp/status/:id",
    "GET /api/v2/whatsapp/templates",
    // The operator API.
    "GET /admin/api/account-views",
    "GET /admin/api/accounts",
    "GET /admin/api/accounts/:username",
    "GET /admin/api/accounts/:username/dlt/callbacks",
    "GET /admin/api/accounts/:username/dlt/chains",
    "GET /admin/api/accounts/:username/dlt/entities",
    "GET /admin/api/accounts/:username/dlt/headers",
    "GET /admin/api/accounts/:username/dlt/urls",
    "GET /admin/api/accounts/:username/email/domains",
    "GET /admin/api/accounts/:username/email/suppressions",
    "GET /admin/api/accounts/:username/inbound-numbers",
    "GET /admin/api/accounts/:username/keys",
    "GET /admin/api/accounts/:username/keywords",
    "GET /admin/api/accounts/:username/low-balance-threshold",
    "GET /admin/api/accounts/:username/sender-ids",
    "GET /admin/api/accounts/:username/suppressions",
    "GET /admin/api/accounts/:username/templates",
    "GET /admin/api/accounts/:username/verify",
    "GET /admin/api/accounts/:username/verify/prefixes",
    "GET /admin/api/accounts/:username/voice/caller-ids",
    "GET /admin/api/accounts/:username/webhooks",
    "GET /admin/api/accounts/:username/webhooks/deliveries",
    "GET /admin/api/accounts/:username/whatsapp",
    "GET /admin/api/alerts",
    "GET /admin/api/analytics/delivery",
    "GET /admin/api/approvals",
    "GET /admin/api/audit",
    "GET /admin/api/audit/export",
    "GET /admin/api/audit/verify",
    "GET /admin/api/carriers",
    "GET /admin/api/carriers/:name",
    "GET /admin/api/carriers/:name/error-codes",
    "GET /admin/api/carriers/health",
    "GET /admin/api/dnd",
    "GET /admin/api/dnd/:number",
    "GET /admin/api/email/inbox",
    "GET /admin/api/email/inbox/:id",
    "GET /admin/api/login-locks",
    "GET /admin/api/messages",
    "GET /admin/api/messages/:id",
    "GET /admin/api/messages/export",
    "GET /admin/api/refusals",
    "GET /admin/api/routes",
    "GET /admin/api/routes/scores",
    "GET /admin/api/smpp/binds",
    "GET /admin/api/system",
    // A user's own sessions; the account's two-factor policy.
    "GET /api/v2/sessions",
    "GET /api/v2/two-factor/policy",
  ],
  manage: [
    // Legacy, XML, email and voice.
    "GET,POST /httpapi/addtemplate",
    "GET,POST /api/secure_api/httpapi/addtemplate",
    // v2 (WhatsApp under /api/v2/whatsapp).
    "POST /api/v2/dlt/callbacks",
    "POST /api/v2/dlt/entities",
    "POST /api/v2/dlt/headers",
    "POST /api/v2/dlt/urls",
    "POST /api/v2/email/domains",
    "DELETE /api/v2/email/domains/:domain",
    "POST /api/v2/email/templates",
    "PUT /api/v2/email/templates/:id",
    "DELETE /api/v2/email/templates/:id",
    "POST /api/v2/groups",
    "DELETE /api/v2/groups/:id",
    "POST /api/v2/groups/:id/contacts",
    "POST /api/v2/keys",
    "PATCH /api/v2/keys/:id",
    "DELETE /api/v2/keys/:id",
    "POST /api/v2/keywords",
    "POST /api/v2/sender-id-requests",
    "POST /api/v2/subaccounts",
    "PATCH /api/v2/subaccounts/:username",
    "POST /api/v2/subaccounts/:username/keys",
    "POST /api/v2/templates",
    "POST /api/v2/voice/caller-ids",
    "PUT /api/v2/webhooks",
    "POST /api/v2/webhooks/deliveries/:id/redeliver",
    "POST /api/v2/webhooks/deliveries/redeliver",
    "POST /api/v2/webhooks/rotate-secret",
    "POST /api/v2/webhooks/test",
    // The operator API.
    "POST /admin/api/accounts",
    "PATCH /admin/api/accounts/:username",
    "POST /admin/api/accounts/:username/dlt/callbacks",
    "DELETE /admin/api/accounts/:username/dlt/callbacks",
    "PUT /admin/api/accounts/:username/dlt/chains",
    "DELETE /admin/api/accounts/:username/dlt/chains",
    "POST /admin/api/accounts/:username/dlt/entities",
    "DELETE /admin/api/accounts/:username/dlt/entities",
    "POST /admin/api/accounts/:username/dlt/headers",
    "DELETE /admin/api/accounts/:username/dlt/headers",
    "POST /admin/api/accounts/:username/dlt/urls",
    "DELETE /admin/api/accounts/:username/dlt/urls",
    "POST /admin/api/accounts/:username/email/domains",
    "PUT /admin/api/accounts/:username/email/domains/:domain",
    "DELETE /admin/api/accounts/:username/email/suppressions/:address",
    "POST /admin/api/accounts/:username/inbound-numbers",
    "DELETE /admin/api/accounts/:username/inbound-numbers/:number",
    "POST /admin/api/accounts/:username/keys",
    "DELETE /admin/api/accounts/:username/login-locks",
    "PUT /admin/api/accounts/:username/low-balance-threshold",
    "POST /admin/api/accounts/:username/sender-ids",
    "POST /admin/api/accounts/:username/suppressions",
    "DELETE /admin/api/accounts/:username/suppressions",
    "POST /admin/api/accounts/:username/templates",
    "PUT /admin/api/accounts/:username/verify",
    "PUT /admin/api/accounts/:username/verify/prefixes/:prefix",
    "POST /admin/api/accounts/:username/voice/caller-ids",
    "DELETE /admin/api/accounts/:username/voice/caller-ids/:number",
    "PUT /admin/api/accounts/:username/webhooks",
    "POST /admin/api/accounts/:username/webhooks/deliveries/:id/redeliver",
    "POST /admin/api/accounts/:username/webhooks/deliveries/redeliver",
    "POST /admin/api/accounts/:username/webhooks/rotate-secret",
    "POST /admin/api/accounts/:username/webhooks/test",
    "PUT /admin/api/accounts/:username/whatsapp",
    "POST /admin/api/accounts/:username/whatsapp/inbound",
    "PUT /admin/api/accounts/:username/whatsapp/templates/:name",
    "POST /admin/api/accounts/:username/whatsapp/templates/sync",
    "PUT /admin/api/alerts",
    "POST /admin/api/carriers",
    "PUT /admin/api/carriers/:name",
    "PATCH /admin/api/carriers/:name",
    "DELETE /admin/api/carriers/:name",
    "PUT /admin/api/carriers/:name/error-codes",
    "PUT /admin/api/carriers/:name/error-codes/:code",
    "DELETE /admin/api/carriers/:name/error-codes/:code",
    "POST /admin/api/dlt/callbacks/:id/approve",
    "POST /admin/api/dlt/callbacks/:id/reject",
    "POST /admin/api/dlt/entities/:id/approve",
    "POST /admin/api/dlt/entities/:id/reject",
    "POST /admin/api/dlt/headers/:id/approve",
    "POST /admin/api/dlt/headers/:id/reject",
    "POST /admin/api/dlt/urls/:id/approve",
    "POST /admin/api/dlt/urls/:id/reject",
    "POST /admin/api/dnd",
    "DELETE /admin/api/dnd",
    "POST /admin/api/dnd/import",
    "POST /admin/api/inbound",
    "PATCH /admin/api/keys/:id",
    "DELETE /admin/api/keys/:id",
    "POST /admin/api/keywords/:id/approve",
    "POST /admin/api/keywords/:id/reject",
    "PUT /admin/api/routes",
    "DELETE /admin/api/routes",
    "POST /admin/api/sender-ids/:id/approve",
    "POST /admin/api/sender-ids/:id/reject",
    "DELETE /admin/api/smpp/binds/:id",
    "POST /admin/api/templates/:id/approve",
    "POST /admin/api/templates/:id/reject",
    "POST /admin/api/voice/caller-ids/:id/approve",
    "POST /admin/api/voice/caller-ids/:id/reject",
    // Users, staff and their sessions; two-factor policies and resets (a key acts as its maker, decision 0140).
    "GET /api/v2/users",
    "POST /api/v2/users",
    "PATCH /api/v2/users/:login",
    "DELETE /api/v2/users/:login",
    "DELETE /api/v2/users/:login/sessions",
    "POST /api/v2/users/:login/invitation",
    "DELETE /api/v2/sessions/:id",
    "DELETE /api/v2/sessions",
    "PUT /api/v2/two-factor/policy",
    "DELETE /api/v2/two-factor/logins/:login",
    "DELETE /admin/api/accounts/:username/two-factor",
    "GET /admin/api/staff",
    "POST /admin/api/staff",
    "PATCH /admin/api/staff/:login",
    "DELETE /admin/api/staff/:login",
    "DELETE /admin/api/staff/:login/sessions",
    "POST /admin/api/staff/:login/invitation",
    // A login's own password (the owner login's: the account's).
    "PUT /api/v2/password",
  ],
  billing: [
    // Legacy, XML, email and voice.
    "GET,POST /api/getcredits",
    // v2 (WhatsApp under /api/v2/whatsapp).
    "GET /api/v2/balance",
    "GET /api/v2/credits",
    "GET /api/v2/credits/export",
    "GET /api/v2/credits/history",
    "GET /api/v2/credits/totals",
    "POST /api/v2/credits/transfer",
    "GET /api/v2/pricing",
    "POST /api/v2/subaccounts/:username/credits",
    "POST /api/v2/subaccounts/:username/credits/reclaim",
    // The operator API.
    "POST /admin/api/accounts/:username/credits",
    "POST /admin/api/accounts/:username/credits/adjust",
    "GET /admin/api/accounts/:username/ledger",
    "GET /admin/api/accounts/:username/ledger/export",
    "GET /admin/api/accounts/:username/ledger/totals",
    "GET /admin/api/analytics/margin",
    "GET /admin/api/carriers/:name/cost-card",
    "PUT /admin/api/carriers/:name/cost-card",
    "GET /admin/api/refund-policy",
    "PUT /admin/api/refund-policy/:reason",
    "DELETE /admin/api/refund-policy/:reason",
    "GET /admin/api/price-cards",
    "GET /admin/api/price-cards/:name",
    "GET /admin/api/price-cards/:name/export",
    "PUT /admin/api/price-cards/:name",
    "DELETE /admin/api/price-cards/:name",
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
  "/voicecall/v1/send",
  "/voicecall/v1/post/send",
  "/voicecall/v1/jpost/send",
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
