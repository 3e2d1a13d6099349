// Where each API family finds credentials in a request.
import { parse as parseCookies } from "cookie";
import type { FastifyRequest } from "fastify";
import { GatewayError } from "../../base/core/errors.js";
import { refuseNul } from "../../base/core/text-checks.js";
import { usernameKey } from "../../base/core/usernames.js";
import { type GatheredParams, gatherParams, isJsonBody } from "../../base/http/param-bags.js";
import type { Actor } from "../audit/index.js";
import type { Authenticator, Principal } from "./authenticator.js";
import { admitCredential, type RouteScope } from "./key-scopes.js";
import { inactiveAccount } from "./principal.js";
import { CSRF_HEADER, SESSION_COOKIE, type Session, type Sessions, sameSecret, VIEW_COOKIE } from "./sessions.js";

declare module "fastify" {
  interface FastifyRequest {
    principal?: Principal;
    /** Set when the request was made with a console session cookie. */
    session?: Session;
  }
  interface FastifyContextConfig {
    /**
     * A GET that changes something (GET send): only an API key opens it. A link or an image can
     * make a browser send a GET with its cookie, and a GET carries no CSRF token.
     */
    changesState?: boolean;
    /** The scope an API key needs for this route, set from app/route-scopes.ts's table as routes are added. */
    keyScope?: RouteScope;
    /**
     * A v2 route that answers a caller whose account is not active (blocked, inactive, or under
     * such a parent, decision 0148): the account status, whose answer is that status. Every other
     * v2 route refuses it (403 account_inactive) in authenticateV2.
     */
    anyAccountStatus?: true;
  }
}

/** What turns a request's credentials into an account: API keys and passwords, and console sessions. */
export interface CallerChecks {
  authenticator: Authenticator;
  sessions: Sessions;
}

/** Methods that change nothing: a cross-site page can make a browser send them, but not read the answer. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

type Bag = Record<string, unknown>;

function asBag(value: unknown): Bag | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Bag) : undefined;
}

function firstString(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  return undefined;
}

/** The key of `Authorization: Bearer` or `X-API-Key`, or undefined. */
function headerKey(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1]) return match[1];
  }
  return firstString(request.headers["x-api-key"])?.trim() || undefined;
}

/** The query's `api_key`, or undefined (left in the query). */
function queryKey(query: Bag | undefined): string | undefined {
  return firstString(query?.api_key)?.trim() || undefined;
}

/**
 * The v2 key, from (in order) `Authorization: Bearer`, `X-API-Key`, `api_key` in the query,
 * `api_key` in a JSON body. The body field is removed so schemas never see it.
 */
export function extractV2ApiKey(request: FastifyRequest): string | undefined {
  const header = headerKey(request);
  const query = asBag(request.query);
  const fromQuery = queryKey(query);
  const fromBody = firstString(asBag(request.body)?.api_key)?.trim();
  dropKeyFields(request);
  return header ?? fromQuery ?? (fromBody || undefined);
}

/**
 * Removes the `api_key` parameter from the query and the JSON body, wherever the key was taken
 * from: a client that sends its key in a header and in the body as well (SDKs that always put it
 * in the body) is not refused for an unknown field. A caller judged before its body was read
 * (a header key) has it removed once the body is parsed.
 */
export function dropKeyFields(request: FastifyRequest): void {
  for (const bag of [asBag(request.query), asBag(request.body)]) {
    if (bag && "api_key" in bag) delete bag.api_key;
  }
}

/**
 * Whether the request carries a credential outside its body (`Authorization: Bearer`, `X-API-Key`,
 * `api_key` in the query, or a console session cookie): the families check such a caller before
 * its body is read, so a wrong or missing key costs the gateway no body buffered.
 */
export function credentialBeforeBody(request: FastifyRequest): boolean {
  return (
    headerKey(request) !== undefined ||
    queryKey(asBag(request.query)) !== undefined ||
    sessionTokenOf(request) !== undefined
  );
}

/**
 * The session token of the request's cookie, if it carries one: an operator's view of an account
 * (VIEW_COOKIE) while one is open, else the browser's own sign-in; `which` picks one of them.
 */
export function sessionTokenOf(
  request: FastifyRequest,
  which: "current" | "own" | "view" = "current",
): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  const cookies = parseCookies(header);
  const view = which === "own" ? undefined : cookies[VIEW_COOKIE] || undefined;
  const own = which === "view" ? undefined : cookies[SESSION_COOKIE] || undefined;
  return view ?? own;
}

/**
 * The console session the request's cookie names, or undefined without one. A cookie whose
 * session has ended is refused rather than ignored, so the console can say why. A request that
 * may change something must repeat the session's CSRF token in X-CSRF-Token: a page of another
 * site can make the browser send the cookie, but cannot read the token. A GET that changes
 * something is refused with any cookie (`changesState`).
 */
export async function sessionOf(
  request: FastifyRequest,
  sessions: Sessions,
  which: "current" | "own" | "view" = "current",
): Promise<Session | undefined> {
  const token = sessionTokenOf(request, which);
  if (!token) return undefined;
  if (SAFE_METHODS.has(request.method) && request.routeOptions.config.changesState) {
    throw new GatewayError(
      "unauthorized",
      `${request.method} ${request.routeOptions.url} takes an API key (Authorization: Bearer <key>, X-API-Key or api_key): a console session never authorizes a GET that changes something.`,
    );
  }
  const session = await sessions.find(token);
  if (!session) {
    throw new GatewayError("unauthorized", "The console session has ended (signed out or expired): sign in again.");
  }
  if (!SAFE_METHODS.has(request.method)) {
    const given = firstString(request.headers[CSRF_HEADER]);
    if (!given || !sameSecret(given, session.csrfToken)) throw new GatewayError("csrf_rejected");
    // An operator's view reads; it changes nothing of the account it shows.
    if (session.viewer) {
      throw new GatewayError(
        "read_only_view",
        `This is ${session.viewer.login}'s read-only view of ${session.principal.username}: it changes nothing. Close the view to act as ${session.viewer.login}.`,
      );
    }
  }
  request.session = session;
  return session;
}

/**
 * The caller of a v2 or operator-API request: its API key (the placements above), else its
 * console session. A request carrying a key is judged by the key alone.
 */
export async function authenticateCaller(
  request: FastifyRequest,
  checks: CallerChecks,
  missing: string,
): Promise<Principal> {
  const key = extractV2ApiKey(request);
  const principal = key
    ? await checks.authenticator.byApiKey(key)
    : (await sessionOf(request, checks.sessions))?.principal;
  if (!principal) throw new GatewayError("unauthorized", missing);
  request.principal = principal;
  return principal;
}

export async function authenticateV2(request: FastifyRequest, checks: CallerChecks): Promise<Principal> {
  const principal = await authenticateCaller(
    request,
    checks,
    "Missing API key: send Authorization: Bearer <key>, X-API-Key: <key>, or api_key in the query or JSON body.",
  );
  if (principal.status !== "active" && !request.routeOptions.config.anyAccountStatus) {
    throw inactiveAccount(principal);
  }
  return principal;
}

/**
 * Refuses the caller when its credential does not open this route from the client's address (the
 * forwarded one behind a trusted proxy): a key's scopes and allowed_ips, a password login's
 * password_allowed_ips. `http` overrides the refusal's status (WhatsApp answers 401).
 */
export function admitCaller(request: FastifyRequest, principal: Principal, http?: number): void {
  if (principal.scopes === undefined && principal.allowedFrom === undefined) return;
  const route = request.routeOptions;
  admitCredential(principal, route.config.keyScope, request.ip, `${request.method} ${route.url}`, http);
}

/**
 * The audit log's actor for an account's login (decision 0126), the one rule every caller uses:
 * `actor_user` is the login that acted, the account's username for its owner login (however
 * the login was written), a user's login otherwise; left out when no login acted (a password
 * login, a key that records no maker: they act as the account).
 */
export function loginActor(
  principal: { accountId: number; username: string },
  login: string | undefined,
  how: { channel: Actor["channel"]; credential: string | null; address: string | null },
): Actor {
  const user =
    login === undefined
      ? undefined
      : usernameKey(login) === usernameKey(principal.username)
        ? principal.username
        : login;
  return {
    accountId: principal.accountId,
    username: principal.username,
    ...(user !== undefined ? { user } : {}),
    channel: how.channel,
    credential: how.credential,
    address: how.address,
  };
}

/**
 * Who is changing something through an authenticated request, as the audit log records it: the
 * account, its console session or API key (the operator API's for an operator key on
 * /admin/api), and the client's address (the forwarded one behind a trusted proxy). A key's
 * login is the one that made it (decision 0174).
 */
export function actorOf(request: FastifyRequest): Actor {
  const principal = request.principal;
  if (!principal) throw new Error(`actorOf: ${request.method} ${request.url} is not authenticated`);
  return principalActor(principal, request.ip, request.url.startsWith("/admin/") && principal.role === "operator");
}

/**
 * Who acts, for the audit log, when `principal` does something at `address` (null where the code
 * that records it has no request): its login, or its key's maker (decision 0174), its session or
 * key. `operatorKey`: an operator's key on the operator API.
 */
export function principalActor(principal: Principal, address: string | null, operatorKey = false): Actor {
  const session = principal.sessionId;
  return loginActor(principal, principal.login ?? principal.keyMadeBy, {
    channel: session !== undefined ? "console" : operatorKey ? "operator_api" : "api",
    credential:
      session !== undefined ? `session:${session}` : principal.keyId !== undefined ? `key:${principal.keyId}` : null,
    address,
  });
}

/**
 * The legacy parameter that takes a comma list (`phonenumber`, and `mobile`, its other name): given
 * more than once in one query or form (`phonenumber=a&phonenumber=b`, a JSON array), its values
 * are joined with commas, so no number is dropped while the send answers success.
 */
const LIST_PARAMETERS: ReadonlySet<string> = new Set(["phonenumber", "mobile"]);

/**
 * The parameters of a legacy-style request: query and body merged (body wins), by
 * base/http/param-bags.ts's rule; `ambiguous` names those given twice with different values (or
 * as a JSON array), which the family refuses.
 */
export function legacyParams(request: FastifyRequest): GatheredParams {
  return gatherParams(
    [{ values: request.query }, { values: request.body, json: isJsonBody(request.headers["content-type"]) }],
    LIST_PARAMETERS,
  );
}

/**
 * Which login legacy credentials name: the key (`api_key`, else `apikey`) when one is given, which
 * wins; else the username (trimmed; undefined when empty). The log of refusals reads the username
 * through this too, so it names the login the family itself tried.
 */
export function legacyLogin(
  params: Readonly<Record<string, string | undefined>>,
): { key: string } | { username?: string } {
  const key = (params.api_key ?? params.apikey)?.trim();
  return key ? { key } : { username: params.username?.trim() || undefined };
}

/**
 * Legacy credentials: `api_key`/`apikey`, or `username`+`password`.
 * Missing user and key: -1; missing password: -2; wrong: -7; locked: -16. The caller then admits
 * the principal (admitCaller): a key's scopes and allow-list, a password's allow-list, -7 too.
 */
export async function authenticateLegacy(
  params: Record<string, string>,
  authenticator: Authenticator,
  /** The caller's address: failed logins lock it out before they lock the account. */
  address: string,
): Promise<Principal> {
  const login = legacyLogin(params);
  if ("key" in login) return authenticator.byApiKey(login.key);
  const { username } = login;
  if (!username) throw new GatewayError("missing_api_key");
  // No username holds a NUL, and PostgreSQL's text cannot: the same refusal on both engines, before
  // the password check (as the console's sign-in), not -7 on one and an unnamed refusal on the other.
  refuseNul(username, "A username", "username");
  const password = params.password;
  if (!password) throw new GatewayError("missing_password");
  return authenticator.byPassword(username, password, address);
}
