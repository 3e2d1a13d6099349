// Where each API family finds credentials in a request.
import type { FastifyRequest } from "fastify";
import { GatewayError } from "../core/errors.js";
import type { Authenticator, Principal } from "./authenticator.js";

declare module "fastify" {
  interface FastifyRequest {
    principal?: Principal;
  }
}

type Bag = Record<string, unknown>;

function asBag(value: unknown): Bag | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Bag) : undefined;
}

function firstString(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  return undefined;
}

/**
 * The v2 key, from (in order) `Authorization: Bearer`, `X-API-Key`, `api_key` in the query,
 * `api_key` in a JSON body. The body field is removed so schemas never see it.
 */
export function extractV2ApiKey(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1]) return match[1];
  }
  const header = firstString(request.headers["x-api-key"]);
  if (header?.trim()) return header.trim();
  const query = asBag(request.query);
  const fromQuery = firstString(query?.api_key);
  if (query && "api_key" in query) delete query.api_key;
  if (fromQuery?.trim()) return fromQuery.trim();
  const body = asBag(request.body);
  const fromBody = firstString(body?.api_key);
  if (body && "api_key" in body) delete body.api_key;
  if (fromBody?.trim()) return fromBody.trim();
  return undefined;
}

export async function authenticateV2(request: FastifyRequest, authenticator: Authenticator): Promise<Principal> {
  const key = extractV2ApiKey(request);
  if (!key) {
    throw new GatewayError(
      "unauthorized",
      "Missing API key: send Authorization: Bearer <key>, X-API-Key: <key>, or api_key in the query or JSON body.",
    );
  }
  const principal = await authenticator.byApiKey(key);
  if (principal.status !== "active") {
    throw new GatewayError("account_inactive", `The account is ${principal.status}.`);
  }
  request.principal = principal;
  return principal;
}

/** The parameters of a legacy-style request: query and form body merged (body wins). */
export function legacyParams(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of [asBag(request.query), asBag(request.body)]) {
    if (!source) continue;
    for (const [name, value] of Object.entries(source)) {
      const text = firstString(value);
      if (text !== undefined) out[name.toLowerCase()] = text;
    }
  }
  return out;
}

/**
 * Legacy credentials: `api_key`/`apikey`, or `username`+`password`.
 * Missing user and key: -1; missing password: -2; wrong: -7; locked: -16.
 */
export async function authenticateLegacy(
  params: Record<string, string>,
  authenticator: Authenticator,
  /** The caller's address: failed logins lock it out before they lock the account. */
  address: string,
): Promise<Principal> {
  const key = (params.api_key ?? params.apikey)?.trim();
  if (key) return authenticator.byApiKey(key);
  const username = params.username?.trim();
  if (!username) throw new GatewayError("missing_api_key");
  const password = params.password;
  if (!password) throw new GatewayError("missing_password");
  return authenticator.byPassword(username, password, address);
}
