// The operator's DLT telemarketer chains of an account (issue 40, item 2): GET, PUT and DELETE
// /admin/api/accounts/{username}/dlt/chains. A chain is declared per entity, the operator's own
// TM ID (DLT_TM_ID) last: shown with the current one last even when declared before it was set
// (carriedTmChain), as the carriers get it. The actions are shared with the CLI (`dlt chains`).
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import {
  clearTmChain,
  DLT_CHANGED,
  dltChanged,
  listTmChains,
  MAX_TM_CHAIN,
  normalizeDltEntityId,
  requireAccount,
  setTmChain,
  tmChainOf,
} from "../../domain/accounts/index.js";
import { recordChange } from "../../domain/audit/index.js";
import { type ChangeDeps, changeDeps, type OperatorDeps } from "./operations.js";
import { ClearedDltChain, DeclaredDltChain, DltChain } from "./sms-rule-schemas.js";

export interface ChainDeps extends ChangeDeps {
  /** The operator's own TM ID (DLT_TM_ID), last of every chain declared and shown. */
  tmId: string | undefined;
}

/** Declares (or replaces) an entity's chain, recorded in the audit log with the chain it replaced. */
export async function setTmChainFor(deps: ChainDeps, username: string, entityId: string, chain: readonly string[]) {
  const account = await requireAccount(deps.store.db, username);
  const set = await deps.store.transaction(async (trx) => {
    const before = await tmChainOf(trx, account.id, entityId);
    const after = await setTmChain(trx, account.id, entityId, chain, deps.tmId);
    await recordChange(trx, deps, {
      action: "dlt_chain.set",
      target: `DLT entity ${after.entity_id} of ${account.username}`,
      accountId: account.id,
      ...(before.length > 0 ? { before: { tm_chain: before } } : {}),
      after: { tm_chain: after.tm_chain },
    });
    return after;
  });
  await dltChanged(deps.store, DLT_CHANGED, account.id);
  return { account: account.username, ...set };
}

export async function clearTmChainFor(deps: ChainDeps, username: string, entityId: string) {
  const account = await requireAccount(deps.store.db, username);
  const entity = normalizeDltEntityId(entityId);
  await deps.store.transaction(async (trx) => {
    const before = await clearTmChain(trx, account.id, entity);
    if (!before) {
      throw new GatewayError(
        "not_found",
        `DLT entity ${entity} of ${account.username} has no declared telemarketer chain.`,
      );
    }
    await recordChange(trx, deps, {
      action: "dlt_chain.clear",
      target: `DLT entity ${entity} of ${account.username}`,
      accountId: account.id,
      before: { tm_chain: before },
    });
  });
  await dltChanged(deps.store, DLT_CHANGED, account.id);
  return { account: account.username, entity_id: entity, cleared: true };
}

export async function tmChainsOf(deps: Pick<ChainDeps, "store" | "tmId">, username: string) {
  const account = await requireAccount(deps.store.db, username);
  return listTmChains(deps.store.db, account.id, deps.tmId);
}

const Username = Type.Object({ username: Type.String() });

export function registerDltChainRoutes(admin: TypedRoutes, ctx: OperatorDeps & Pick<Runtime, "config">): void {
  const deps = (request: FastifyRequest): ChainDeps => ({ ...changeDeps(ctx, request), tmId: ctx.config.dlt.tmId });
  const readDeps = { store: ctx.store, tmId: ctx.config.dlt.tmId };
  const ok = (data: unknown) => ({ status: "success", data });
  const EntityId = Type.String({ maxLength: 64 });
  admin.get(
    "/accounts/:username/dlt/chains",
    { schema: { params: Username, response: operatorAnswer(Type.Array(DltChain)) } },
    async (request) => ok(await tmChainsOf(readDeps, request.params.username)),
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
      ok(await setTmChainFor(deps(request), request.params.username, request.body.entity_id, request.body.chain)),
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
    async (request) => ok(await clearTmChainFor(deps(request), request.params.username, request.body.entity_id)),
  );
}
