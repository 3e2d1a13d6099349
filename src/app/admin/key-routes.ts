// The operator's view of an account's API keys, under /admin/api: list them (never the key), make
// one (shown once), change a key's rate limit, name, scopes or allowed addresses, revoke one. Thin
// adapters over operations.ts and accounts/key-changes.ts.

import { Type } from "typebox";
import { IdParams } from "../../base/http/query-params.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { changeKey, KeyChange, KeyRequest } from "../../domain/accounts/index.js";
import { creatorScopeBits } from "../../domain/auth/index.js";
import { KeyChanged, OperatorApiKey, OperatorCreatedKey, OperatorKeyRevocation } from "./account-schemas.js";
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
      const creatorBits = creatorScopeBits(request.principal!, body.scopes);
      const key = await createKeyFor(acting, request.params.username, options, creatorBits);
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
        summary: "Change a key's rate limit, name, scopes or allowed addresses (each left out is kept)",
        params: IdParams,
        body: Type.Object(
          {
            rate_limit: Type.Optional(RateLimit),
            name: KeyChange.properties.name,
            scopes: KeyChange.properties.scopes,
            allowed_ips: KeyChange.properties.allowed_ips,
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: operatorAnswer(KeyChanged),
      },
    },
    async (request) => {
      const { id } = request.params;
      const body = request.body;
      const rateLimit = body.rate_limit === undefined ? undefined : parseRateLimit(body.rate_limit);
      const creatorBits = creatorScopeBits(request.principal!, body.scopes);
      const changes = { ...body, ...(rateLimit !== undefined ? { rate_limit: rateLimit } : {}) };
      const editor = { bits: creatorBits, userRole: request.principal!.userRole };
      const key = await changeKey(changeDeps(deps, request), id, undefined, changes, editor);
      // The key's id and the fields asked for, as they are now (in the answer schema's order).
      const asked = (["rate_limit", "name", "scopes", "allowed_ips"] as const).filter((field) => field in body);
      return ok({ id: key.id, ...Object.fromEntries(asked.map((field) => [field, key[field]])) });
    },
  );
}
