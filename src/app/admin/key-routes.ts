// The operator's view of an account's API keys, under /admin/api: list them (never the key), make
// one (shown once), change a key's rate limit, revoke one. Thin adapters over operations.ts.

import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { IdParams } from "../../base/http/query-params.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { KeyRequest } from "../../domain/accounts/index.js";
import { recordChange } from "../../domain/audit/index.js";
import { apiKeyRevoked, setApiKeyRateLimit } from "../../domain/auth/index.js";
import { KeyRateLimit, OperatorApiKey, OperatorCreatedKey, OperatorKeyRevocation } from "./account-schemas.js";
import { createKeyFor, keysOf, revokeKey } from "./key-credit-operations.js";
import { changeDeps, MAX_RATE_LIMIT, parseRateLimit } from "./operations.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

const Username = Type.Object({ username: Type.String() });
/** Requests per minute; 0 = unlimited. */
export const RateLimit = Type.Integer({ minimum: 0, maximum: MAX_RATE_LIMIT });

export function registerKeyRoutes(admin: TypedRoutes, ctx: Deps): void {
  const deps = { store: ctx.store, clock: ctx.clock };
  const ok = (data: unknown) => ({ status: "success", data });

  admin.get(
    "/accounts/:username/keys",
    { schema: { params: Username, response: operatorAnswer(Type.Array(OperatorApiKey)) } },
    async (request) => ok(await keysOf(deps, request.params.username)),
  );

  admin.post(
    "/accounts/:username/keys",
    {
      // Every field has a default, so a POST without a body is a valid request for a key.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        params: Username,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ maxLength: 100 })),
            rate_limit: Type.Optional(RateLimit),
            scopes: KeyRequest.properties.scopes,
            allowed_ips: KeyRequest.properties.allowed_ips,
          },
          { additionalProperties: false },
        ),
        response: operatorAnswer(OperatorCreatedKey),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const options = {
        ...(body.name ? { name: body.name } : {}),
        ...(body.rate_limit !== undefined ? { rateLimit: body.rate_limit } : {}),
        ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
        ...(body.allowed_ips !== undefined ? { allowedIps: body.allowed_ips } : {}),
      };
      const acting = changeDeps(deps, request);
      const key = await createKeyFor(acting, request.params.username, options, request.principal!.scopes);
      return reply.code(201).send(ok(key));
    },
  );

  admin.delete(
    "/keys/:id",
    { schema: { params: IdParams, response: operatorAnswer(OperatorKeyRevocation) } },
    async (request) => ok(await revokeKey(changeDeps(deps, request), request.params.id)),
  );

  admin.patch(
    "/keys/:id",
    {
      schema: {
        params: IdParams,
        body: Type.Object({ rate_limit: RateLimit }, { additionalProperties: false }),
        response: operatorAnswer(KeyRateLimit),
      },
    },
    async (request) => {
      const { id } = request.params;
      const rateLimit = parseRateLimit(request.body.rate_limit);
      const acting = changeDeps(deps, request);
      const { keyHash } = await ctx.store.transaction(async (trx) => {
        const key = await setApiKeyRateLimit(trx, id, rateLimit);
        if (!key) throw new GatewayError("not_found", `No API key with id ${id}.`);
        const change = { action: "key.rate_limit", target: `key ${id}`, accountId: key.accountId };
        await recordChange(trx, acting, { ...change, after: { rate_limit: rateLimit } });
        return key;
      });
      await apiKeyRevoked(ctx.store, keyHash);
      return ok({ id, rate_limit: rateLimit });
    },
  );
}
