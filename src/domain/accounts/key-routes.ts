// An account's own API keys on v2: list them (never the key itself), create one (shown once),
// change one's name, scopes and allowed addresses, revoke one. The operator's equivalents are under /admin/api (admin/routes.ts).
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import { pathId } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { AccountRole } from "../../base/store/schema.js";
import { type Audited, recordChange } from "../audit/index.js";
import {
  actorOf,
  allowedIpsToStore,
  apiKeyRevoked,
  createApiKey,
  creatorScopeBits,
  DEFAULT_RATE_LIMIT,
  findLiveApiKey,
  type KeyMaker,
  keyMakerOf,
  keyScopesToStore,
  listApiKeys,
  makerRoleOf,
} from "../auth/index.js";
import { changeKey, guardKeyOfCaller, KeyChange, KeyRequest, keyLimits, revokeKeyRecorded } from "./key-changes.js";
import { ApiKey, CreatedKey, KeyRevocation } from "./v2-schemas.js";

const resource = { envelope: "status" } as const;

const iso = (ms: number) => isoUtc(new Date(ms));

/**
 * A new key of the account, as POST /api/v2/keys answers it (the key shown this once). A scoped
 * key that makes one (`creatorScopes`, its bits) gives at most its own scopes; `maker` is the user
 * the key acts as (decision 0140), the owner when left out.
 */
export async function newKeyAnswer(
  ctx: Pick<Runtime, "store"> & Audited,
  account: { id: number; role: AccountRole },
  asked: { name?: string | undefined; scopes?: string[] | undefined; allowed_ips?: string[] | null | undefined },
  creatorScopes?: number,
  maker?: KeyMaker,
) {
  const accountId = account.id;
  const name = asked.name?.trim() || null;
  if (name?.includes("\u0000")) {
    throw new GatewayError("invalid_request", "The name holds a NUL character.", { field: "name" });
  }
  // The rate the operator gave the account's keys: that of its newest live key (an account
  // cannot raise its own limit by making keys).
  const keys = await listApiKeys(ctx.store.db, accountId);
  const live = keys.filter((key) => key.revoked_at === null);
  const rateLimit = live.length > 0 ? live[live.length - 1]!.rate_limit : DEFAULT_RATE_LIMIT;
  const scopes = keyScopesToStore(asked.scopes, account.role, creatorScopes);
  const allowedIps = allowedIpsToStore(asked.allowed_ips, "allowed_ips");
  const key = await ctx.store.transaction(async (trx) => {
    const made = { name, rateLimit, scopes, allowedIps, ...(maker ? { maker } : {}) };
    const key = await createApiKey(trx, ctx.clock, accountId, made);
    const limits = keyLimits({ scopes, allowed_ips: allowedIps }, account.role);
    const after = { prefix: key.prefix, name, rate_limit: key.rateLimit, ...limits, created_by: maker?.login ?? null };
    await recordChange(trx, ctx, { action: "key.create", target: `key ${key.id}`, accountId, after });
    return key;
  });
  return {
    status: "success" as const,
    data: {
      id: key.id,
      api_key: key.key,
      prefix: key.prefix,
      name,
      rate_limit: key.rateLimit,
      ...keyLimits({ scopes, allowed_ips: allowedIps }, account.role),
    },
  };
}

export function registerV2KeyRoutes(v2: TypedRoutes, ctx: Pick<Runtime, "store" | "clock">): void {
  const db = ctx.store.db;

  v2.get(
    "/keys",
    {
      config: resource,
      schema: {
        operationId: "listApiKeys",
        summary: "The account's API keys, revoked ones included (never the keys themselves)",
        tags: ["account"],
        response: { 200: resourceAnswer(Type.Array(ApiKey)) },
      },
    },
    async (request) => {
      const { accountId, role } = request.principal!;
      const keys = await listApiKeys(db, accountId);
      return {
        status: "success",
        data: keys.map((key) => ({
          id: key.id,
          prefix: key.prefix,
          name: key.name,
          rate_limit: key.rate_limit,
          ...keyLimits(key, role),
          created_by: key.created_by,
          maker_role: makerRoleOf(key, role),
          created_at: iso(key.created_at),
          revoked_at: key.revoked_at === null ? null : iso(key.revoked_at),
        })),
      };
    },
  );

  v2.post(
    "/keys",
    {
      config: resource,
      // A POST without a body asks for a key without a name.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        operationId: "createApiKey",
        summary: "A new API key for the account, shown once",
        tags: ["account"],
        body: KeyRequest,
        response: { 201: resourceAnswer(CreatedKey) },
      },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const account = { id: principal.accountId, role: principal.role };
      const who = { ...ctx, actor: actorOf(request) };
      const creatorBits = creatorScopeBits(principal, request.body.scopes);
      const maker = keyMakerOf(principal);
      return reply.code(201).send(await newKeyAnswer(who, account, request.body, creatorBits, maker));
    },
  );

  v2.patch(
    "/keys/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "updateApiKey",
        summary:
          "Changes a key's name, scopes or allowed addresses (each left out is kept); the new limits apply to its next request",
        tags: ["account"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
        body: KeyChange,
        response: { 200: resourceAnswer(ApiKey) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const who = { ...ctx, actor: actorOf(request) };
      const creatorBits = creatorScopeBits(principal, request.body.scopes);
      const editor = { bits: creatorBits, userRole: principal.userRole, caller: principal };
      const key = await changeKey(who, pathId(request.params.id), principal.accountId, request.body, editor);
      return { status: "success", data: key };
    },
  );

  v2.delete(
    "/keys/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "revokeApiKey",
        summary:
          "Revokes one of the account's API keys: it stops working at once (a key that can do more than the caller is refused)",
        tags: ["account"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
        response: { 200: resourceAnswer(KeyRevocation) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const numeric = pathId(id);
      const who = { clock: ctx.clock, actor: actorOf(request) };
      const principal = request.principal!;
      const keyHash = await ctx.store.transaction(async (trx) => {
        const key = numeric === undefined ? undefined : await findLiveApiKey(trx, numeric, principal.accountId);
        // Another account's key is answered exactly as an unknown one.
        if (!key) throw new GatewayError("not_found", `No live API key with id "${id}" in this account.`);
        await guardKeyOfCaller(trx, key, principal, "revoke");
        const keyHash = await revokeKeyRecorded(trx, who, key, principal.role);
        if (!keyHash) throw new GatewayError("not_found", `No live API key with id "${id}" in this account.`);
        return keyHash;
      });
      await apiKeyRevoked(ctx.store, keyHash);
      return { status: "success", data: { id: numeric!, revoked: true } };
    },
  );
}
