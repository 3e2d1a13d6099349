// The operator's DLT link and callback white-lists of an account (issue 40, item 1):
// POST|GET|DELETE /admin/api/accounts/{username}/dlt/urls and …/dlt/callbacks, and the decision
// on an account's request (POST /admin/api/dlt/urls|callbacks/{id}/approve|reject). The actions
// are shared with the CLI (dltLinkOperations below), so both behave alike.
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { IdParams } from "../../base/http/query-params.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { ApprovalStatus } from "../../base/store/schema.js";
import {
  addDltLink,
  approvalBefore,
  DLT_CHANGED,
  DLT_LINK_FIELD,
  type DltLinkKind,
  decisionBody,
  describeDltLink,
  dltChanged,
  listDltLinks,
  reasonOf,
  rejectionReason,
  removeDltLink,
  requireAccount,
  setDltLinkStatus,
} from "../../domain/accounts/index.js";
import { recordChange } from "../../domain/audit/index.js";
import { type ChangeDeps, changeDeps, type OperatorDeps, recordDecision } from "./operations.js";
import { AddedDltLink, OperatorDltLink, RemovedDltLink } from "./sms-rule-schemas.js";

const WHAT: Record<DltLinkKind, string> = { url: "DLT link", callback: "DLT callback number" };

/** Adds a link or number to an entity's list of the account, approved. */
export async function addDltLinkFor(
  deps: ChangeDeps,
  username: string,
  kind: DltLinkKind,
  entityId: string,
  value: string,
) {
  const account = await requireAccount(deps.store.db, username);
  const { row } = await deps.store.transaction(async (trx) => {
    const added = await addDltLink(trx, deps.clock, account, { kind, entityId, value, status: "approved" });
    const after = describeDltLink(added.row);
    await recordChange(trx, deps, {
      action: `dlt_${kind}.add`,
      target: `${WHAT[kind]} ${added.row.id}`,
      accountId: account.id,
      after,
    });
    return added;
  });
  await dltChanged(deps.store, DLT_CHANGED, account.id);
  return { ...describeDltLink(row), account: account.username };
}

export async function removeDltLinkFor(
  deps: ChangeDeps,
  username: string,
  kind: DltLinkKind,
  entityId: string,
  value: string,
) {
  const account = await requireAccount(deps.store.db, username);
  const removed = await deps.store.transaction(async (trx) => {
    const removed = await removeDltLink(trx, account, { kind, entityId, value });
    if (!removed.removed) {
      throw new GatewayError(
        "not_found",
        `${WHAT[kind]} ${removed.value} is not on the list of DLT entity ${removed.entityId} of ${account.username}.`,
      );
    }
    const target = `${WHAT[kind]} ${removed.value} of DLT entity ${removed.entityId}`;
    await recordChange(trx, deps, {
      action: `dlt_${kind}.remove`,
      target,
      accountId: account.id,
      before: { value: removed.value },
    });
    return removed;
  });
  await dltChanged(deps.store, DLT_CHANGED, account.id);
  return {
    account: account.username,
    entity_id: removed.entityId,
    url: kind === "url" ? removed.value : null,
    number: kind === "callback" ? removed.value : null,
    removed: true,
  };
}

export async function dltLinksOf(deps: OperatorDeps, username: string, kind: DltLinkKind, entityId?: string) {
  const account = await requireAccount(deps.store.db, username);
  return (await listDltLinks(deps.store.db, account.id, kind, entityId)).map(describeDltLink);
}

export async function setDltLinkStatusFor(
  deps: ChangeDeps,
  kind: DltLinkKind,
  id: number,
  status: ApprovalStatus,
  /** A rejection's reason, shown to the account (rejectionReason). */
  reason: string | null = null,
) {
  const row = await deps.store.transaction(async (trx) => {
    const before = await approvalBefore(trx, "dlt_links", id);
    const row = await setDltLinkStatus(trx, kind, id, status, rejectionReason(reason));
    if (!row || !before) throw new GatewayError("not_found", `No ${WHAT[kind]} with id ${id}.`);
    await recordDecision(trx, deps, `dlt_${kind}`, `${WHAT[kind]} ${id}`, before, describeDltLink(row));
    return row;
  });
  await dltChanged(deps.store, DLT_CHANGED, row.account_id);
  return describeDltLink(row);
}

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

const Username = Type.Object({ username: Type.String() });

export function registerDltLinkRoutes(admin: TypedRoutes, ctx: Deps): void {
  const deps = { store: ctx.store, clock: ctx.clock };
  const ok = (data: unknown) => ({ status: "success", data });
  for (const [path, kind] of [
    ["urls", "url"],
    ["callbacks", "callback"],
  ] as const) {
    const field = DLT_LINK_FIELD[kind];
    const Body = Type.Object(
      { entity_id: Type.String({ maxLength: 64 }), [field]: Type.String({ maxLength: 1000 }) },
      { additionalProperties: false },
    );
    const listedOf = (body: unknown) => (body as Record<string, string>)[field] ?? "";
    const entityOf = (body: unknown) => (body as Record<string, string>).entity_id ?? "";
    admin.get(
      `/accounts/:username/dlt/${path}`,
      {
        schema: {
          params: Username,
          querystring: Type.Object({ entity_id: Type.Optional(Type.String({ maxLength: 64 })) }),
          response: operatorAnswer(Type.Array(OperatorDltLink)),
        },
      },
      async (request) => ok(await dltLinksOf(deps, request.params.username, kind, request.query.entity_id)),
    );
    admin.post(
      `/accounts/:username/dlt/${path}`,
      { schema: { params: Username, body: Body, response: operatorAnswer(AddedDltLink) } },
      async (request, reply) => {
        const { username } = request.params;
        const added = await addDltLinkFor(
          changeDeps(deps, request),
          username,
          kind,
          entityOf(request.body),
          listedOf(request.body),
        );
        return reply.code(201).send(ok(added));
      },
    );
    admin.delete(
      `/accounts/:username/dlt/${path}`,
      { schema: { params: Username, body: Body, response: operatorAnswer(RemovedDltLink) } },
      async (request) =>
        ok(
          await removeDltLinkFor(
            changeDeps(deps, request),
            request.params.username,
            kind,
            entityOf(request.body),
            listedOf(request.body),
          ),
        ),
    );
    for (const [action, status] of [
      ["approve", "approved"],
      ["reject", "rejected"],
    ] as const) {
      admin.post(
        `/dlt/${path}/:id/${action}`,
        {
          schema: { params: IdParams, body: decisionBody(action).body, response: operatorAnswer(OperatorDltLink) },
          preValidation: decisionBody(action).preValidation,
        },
        async (request) => {
          const reason = reasonOf(request.body);
          return ok(await setDltLinkStatusFor(changeDeps(deps, request), kind, request.params.id, status, reason));
        },
      );
    }
  }
}
