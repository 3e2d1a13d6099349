// The sessions you can see (issue 42, item 5; decision 0127): GET /api/v2/sessions lists the
// caller's own console sessions (device, address, last use; an API key sees the owner login's, an
// operator's read-only view none),
// DELETE /api/v2/sessions/{id} ends one, DELETE /api/v2/sessions every one but the caller's own.
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { GatewayError } from "../base/core/errors.js";
import { resourceAnswer } from "../base/http/answer-schemas.js";
import { pathId } from "../base/http/query-params.js";
import type { TypedRoutes } from "../base/http/typed-routes.js";
import type { Runtime } from "../base/runtime/runtime.js";
import { actorOf, endSessions, listSessions, type SessionOwner } from "../domain/auth/index.js";
import { SessionList, SessionsEnded } from "../domain/auth/user-schemas.js";

type Deps = Pick<Runtime, "store" | "clock">;

function ownerOf(request: FastifyRequest): SessionOwner {
  const p = request.principal!;
  return { accountId: p.accountId, userId: p.userId ?? null, login: p.login ?? p.username };
}

export function registerV2SessionRoutes(v2: TypedRoutes, ctx: Deps): void {
  const tags = ["users"];
  const config = { envelope: "status", errors: [404] } as const;
  const ok = <T>(data: T) => ({ status: "success" as const, data });
  v2.get(
    "/sessions",
    {
      config,
      schema: {
        operationId: "listSessions",
        summary: "Your signed-in console sessions: device, address, last use; `current` is this one",
        tags,
        response: { 200: resourceAnswer(SessionList) },
      },
    },
    async (request) =>
      // An operator's read-only view has no sessions of its own to list, and the account's sign-ins
      // (where from, which device) are its users' to see, not the view's (decision 0141).
      ok(request.session?.viewer ? [] : await listSessions(ctx.store, ownerOf(request), request.principal!.sessionId)),
  );
  v2.delete(
    "/sessions/:id",
    {
      config,
      schema: {
        operationId: "endSession",
        summary: "Ends one of your console sessions (this one too, if it names it)",
        tags,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
        response: { 200: resourceAnswer(SessionsEnded) },
      },
    },
    async (request) => {
      const id = pathId(request.params.id);
      if (id === undefined)
        throw new GatewayError("not_found", `No session ${request.params.id.slice(0, 30)} of yours.`);
      const who = { clock: ctx.clock, actor: actorOf(request) };
      return ok({ ended: await endSessions(ctx.store, who, ownerOf(request), { only: id }) });
    },
  );
  v2.delete(
    "/sessions",
    {
      config,
      schema: {
        operationId: "endOtherSessions",
        summary: "Ends every one of your console sessions but the one this request came with",
        tags,
        response: { 200: resourceAnswer(SessionsEnded) },
      },
    },
    async (request) => {
      const who = { clock: ctx.clock, actor: actorOf(request) };
      const except = request.principal!.sessionId;
      return ok({ ended: await endSessions(ctx.store, who, ownerOf(request), { except }) });
    },
  );
}
