// Operator API for voice: the caller numbers an account may call from, under
// /admin/api/accounts/{username}/voice/caller-ids, and the approval of one an account asked for
// (/admin/api/voice/caller-ids/{id}/approve|reject), mounted by app/ behind the operator check.
// Thin adapters over caller-ids.ts.

import { Type } from "typebox";
import { IdParams } from "../../base/http/query-params.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { decisionBody, reasonOf } from "../../domain/accounts/index.js";
import { actorOf } from "../../domain/auth/index.js";
import { OperatorCallerId, RemovedCallerId } from "./admin-schemas.js";
import { approveCallerIdFor, callerIdsOf, removeCallerIdFor, setCallerIdStatus } from "./caller-ids.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

const Username = Type.Object({ username: Type.String() });

export function registerVoiceAdminRoutes(admin: TypedRoutes, ctx: Deps): void {
  const deps = { store: ctx.store, clock: ctx.clock };
  const ok = (data: unknown) => ({ status: "success", data });
  const username = (params: unknown) => (params as { username: string }).username;

  admin.get(
    "/accounts/:username/voice/caller-ids",
    { schema: { params: Username, response: operatorAnswer(Type.Array(OperatorCallerId)) } },
    async (request) => ok(await callerIdsOf(deps, username(request.params))),
  );

  admin.post(
    "/accounts/:username/voice/caller-ids",
    {
      schema: {
        params: Username,
        body: Type.Object({ number: Type.String({ maxLength: 32 }) }, { additionalProperties: false }),
        response: operatorAnswer(OperatorCallerId),
      },
    },
    async (request, reply) => {
      const { number } = request.body;
      const who = { ...deps, actor: actorOf(request) };
      const { created, callerId } = await approveCallerIdFor(who, username(request.params), number);
      return reply.code(created ? 201 : 200).send(ok(callerId));
    },
  );

  admin.delete(
    "/accounts/:username/voice/caller-ids/:number",
    {
      schema: {
        params: Type.Object({ username: Type.String(), number: Type.String({ maxLength: 32 }) }),
        response: operatorAnswer(RemovedCallerId),
      },
    },
    async (request) => {
      const { number } = request.params;
      return ok(await removeCallerIdFor({ ...deps, actor: actorOf(request) }, username(request.params), number));
    },
  );

  for (const [action, status] of [
    ["approve", "approved"],
    ["reject", "rejected"],
  ] as const) {
    admin.post(
      `/voice/caller-ids/:id/${action}`,
      {
        schema: { params: IdParams, body: decisionBody(action).body, response: operatorAnswer(OperatorCallerId) },
        preValidation: decisionBody(action).preValidation,
      },
      async (request) =>
        ok(await setCallerIdStatus(deps, request.params.id, status, actorOf(request), reasonOf(request.body))),
    );
  }
}
