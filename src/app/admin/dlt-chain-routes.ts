// The operator's DLT telemarketer chains of an account (issue 40, item 2): GET, PUT and DELETE
// /admin/api/accounts/{username}/dlt/chains. A chain is declared per entity, the operator's own
// TM ID (DLT_TM_ID) last. The actions are shared with the CLI (`dlt chains`), so both behave alike.
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import {
  clearTmChain,
  listTmChains,
  MAX_TM_CHAIN,
  normalizeDltEntityId,
  requireAccount,
  setTmChain,
} from "../../domain/accounts/index.js";
import { ClearedDltChain, DeclaredDltChain, DltChain } from "./sms-rule-schemas.js";

export interface ChainDeps {
  store: Runtime["store"];
  /** The operator's own TM ID (DLT_TM_ID), last of every chain. */
  tmId: string | undefined;
}

export async function setTmChainFor(deps: ChainDeps, username: string, entityId: string, chain: readonly string[]) {
  const account = await requireAccount(deps.store.db, username);
  const set = await setTmChain(deps.store, account.id, entityId, chain, deps.tmId);
  return { account: account.username, ...set };
}

export async function clearTmChainFor(deps: ChainDeps, username: string, entityId: string) {
  const account = await requireAccount(deps.store.db, username);
  const entity = normalizeDltEntityId(entityId);
  if (!(await clearTmChain(deps.store, account.id, entity))) {
    throw new GatewayError(
      "not_found",
      `DLT entity ${entity} of ${account.username} has no declared telemarketer chain.`,
    );
  }
  return { account: account.username, entity_id: entity, cleared: true };
}

export async function tmChainsOf(deps: ChainDeps, username: string) {
  const account = await requireAccount(deps.store.db, username);
  return listTmChains(deps.store.db, account.id);
}

const Username = Type.Object({ username: Type.String() });

export function registerDltChainRoutes(admin: TypedRoutes, ctx: Pick<Runtime, "store" | "config">): void {
  const deps: ChainDeps = { store: ctx.store, tmId: ctx.config.dlt.tmId };
  const ok = (data: unknown) => ({ status: "success", data });
  const EntityId = Type.String({ maxLength: 64 });
  admin.get(
    "/accounts/:username/dlt/chains",
    { schema: { params: Username, response: operatorAnswer(Type.Array(DltChain)) } },
    async (request) => ok(await tmChainsOf(deps, request.params.username)),
  );
  admin.put(
    "/accounts/:username/dlt/chains",
    {
      schema: {
        params: Username,
        body: Type.Object(
          {
            entity_id: EntityId,
            chain: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: MAX_TM_CHAIN }),
          },
          { additionalProperties: false },
        ),
        response: operatorAnswer(DeclaredDltChain),
      },
    },
    async (request) =>
      ok(await setTmChainFor(deps, request.params.username, request.body.entity_id, request.body.chain)),
  );
  admin.delete(
    "/accounts/:username/dlt/chains",
    {
      schema: {
        params: Username,
        body: Type.Object({ entity_id: EntityId }, { additionalProperties: false }),
        response: operatorAnswer(ClearedDltChain),
      },
    },
    async (request) => ok(await clearTmChainFor(deps, request.params.username, request.body.entity_id)),
  );
}
