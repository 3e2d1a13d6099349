// What each route of v2 and of the operator API needs of the signed-in user's role (issue 42,
// item 1; decision 0126). One table, read in order: the first rule whose method and path match
// gives the route's `config.access` when it is registered (a route may set its own), and one hook
// of each family checks it (requireAccess). An API key acts as the user who made it, with their
// role as it is now (decision 0140); a key of the owner login, the operator or the CLI as the
// account's owner login (`owner`, or `operator_admin` for an operator's key). The matrix test calls
// every route as every role.
import type { FastifyRequest, RouteOptions } from "fastify";
import { GatewayError } from "../base/core/errors.js";
import { type Capability, ownerRoleOf, roleAllows } from "../domain/auth/index.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** What the route needs: any one of these capabilities (user-roles.ts). */
    access?: readonly Capability[];
    /** Body fields that a role with one of `access` may change alone, without the route's access (FIELD_RULES). */
    fieldAccess?: FieldAccess;
  }
}

/** A route as labelled: the matrix test calls each one as every role. */
export interface RouteAccess {
  method: string;
  url: string;
  access: readonly Capability[];
  /** Opened by an API key only (a GET that changes something): no session reaches its role check. */
  keyOnly: boolean;
}

type Rule = [methods: RegExp, path: RegExp, access: readonly Capability[]];

interface FieldAccess {
  fields: readonly string[];
  access: readonly Capability[];
}

const ANY = /./;
const READS = /^(GET|HEAD)$/;
const CHANGES = /^(POST|PUT|PATCH|DELETE)$/;

/** v2, paths after /api/v2. */
const V2_RULES: Rule[] = [
  [ANY, /^\/sessions(\/|$)/, ["basic"]],
  // Every login changes its own password.
  [ANY, /^\/password$/, ["basic"]],
  [ANY, /^\/users(\/|$)/, ["manage"]],
  // Every login reads whether a factor is required; the policy and a login's reset are an owner's or admin's.
  [READS, /^\/two-factor\/policy$/, ["basic"]],
  [CHANGES, /^\/two-factor(\/|$)/, ["manage"]],
  [READS, /^\/(account|account\/status|balance)$/, ["basic"]],
  [CHANGES, /^\/account(\/|$)/, ["manage"]],
  [ANY, /^\/(keys|webhooks|smpp\/binds)(\/|$)/, ["develop"]],
  [ANY, /^\/subaccounts\/[^/]+\/keys$/, ["develop"]],
  // Taking issued credits back from a customer is a change to that customer (decision 0150).
  [ANY, /^\/subaccounts\/[^/]+\/credits\/reclaim$/, ["manage"]],
  [ANY, /^\/subaccounts\/[^/]+\/credits$/, ["money"]],
  // Billing issues credits to its customers, so it reads which customers there are (and their wallets).
  [READS, /^\/subaccounts$/, ["read", "money"]],
  [CHANGES, /^\/subaccounts$/, ["manage"]],
  // A sub-account's price or status: as making one.
  [CHANGES, /^\/subaccounts\/[^/]+$/, ["manage"]],
  [ANY, /^\/(credits|pricing)(\/|$)/, ["money"]],
  // A message export is read by support and billing alike.
  [READS, /^\/messages\/export$/, ["read", "money"]],
  [READS, ANY, ["read"]],
  [CHANGES, ANY, ["send"]],
];

/** The operator API, paths after /admin/api. */
const ADMIN_RULES: Rule[] = [
  [READS, ANY, ["staff_read"]],
  [CHANGES, /^\/accounts\/[^/]+\/credits(\/|$)/, ["staff_money"]],
  [CHANGES, /^\/(price-cards|carriers\/[^/]+\/cost-card|refund-policy)(\/|$)/, ["staff_money"]],
  [CHANGES, ANY, ["staff_admin"]],
];

/**
 * The operator API's exceptions, by field: a change whose body has these fields and no other
 * needs only this access. Finance (staff_money) writes the price cards, so it puts one on an
 * account (PATCH /accounts/{username} with price_card alone); any other field needs staff_admin.
 */
const ADMIN_FIELD_RULES: [methods: RegExp, path: RegExp, access: FieldAccess][] = [
  [/^PATCH$/, /^\/accounts\/[^/]+$/, { fields: ["price_card"], access: ["staff_money"] }],
];

function accessIn(rules: Rule[], method: string, path: string): readonly Capability[] {
  for (const [methods, pattern, access] of rules) if (methods.test(method) && pattern.test(path)) return access;
  throw new Error(`no access rule for ${method} ${path}`);
}

/** The access a route of `family` needs, from the table (path relative to the family's prefix). */
export function accessOf(family: "v2" | "admin", method: string, path: string): readonly Capability[] {
  return accessIn(family === "v2" ? V2_RULES : ADMIN_RULES, method, path.toLowerCase());
}

/** An onRoute hook giving each route of the family its access, unless the route states its own. */
export function labelAccess(family: "v2" | "admin", prefix: string, labelled: RouteAccess[]) {
  return (route: RouteOptions): void => {
    if (route.config?.public) return;
    const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
    const path = route.url.startsWith(prefix) ? route.url.slice(prefix.length) : route.url;
    // A GET that changes something (GET send) is a send, whatever its method says.
    const access = route.config?.access ?? (route.config?.changesState ? ["send"] : accessOf(family, method, path));
    const fieldAccess =
      family === "admin"
        ? ADMIN_FIELD_RULES.find(([methods, pattern]) => methods.test(method) && pattern.test(path.toLowerCase()))?.[2]
        : undefined;
    route.config = { ...route.config, access, ...(fieldAccess ? { fieldAccess } : {}) };
    if (method !== "HEAD") labelled.push({ method, url: route.url, access, keyOnly: !!route.config.changesState });
  };
}

/** Refuses with 403 `insufficient_role` a request whose user's role lacks what the route needs. */
export function requireAccess(request: FastifyRequest): void {
  const principal = request.principal;
  const access = request.routeOptions.config.access;
  if (!principal || !access) return;
  const role = principal.userRole ?? ownerRoleOf(principal.role);
  if (access.some((capability) => roleAllows(role, capability))) return;
  const byField = request.routeOptions.config.fieldAccess;
  const fieldsAllowed = byField?.access.some((capability) => roleAllows(role, capability)) === true;
  if (fieldsAllowed && onlyFields(request.body, byField!.fields)) return;
  const alone = fieldsAllowed ? `; ${role} may change ${byField!.fields.join(", ")} alone` : "";
  throw new GatewayError(
    "insufficient_role",
    `The role ${role} of ${principal.login ?? principal.keyMaker?.login ?? principal.username}${principal.keyMaker ? ` (whose API key this is)` : ""} does not allow ${request.method} ${request.routeOptions.url} (it needs ${access.join(" or ")}${alone}).`,
    { user_role: role },
  );
}

/** Whether the body is an object with at least one field, each one of `fields`. */
function onlyFields(body: unknown, fields: readonly string[]): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const given = Object.keys(body);
  return given.length > 0 && given.every((field) => fields.includes(field));
}
