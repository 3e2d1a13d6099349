// The sessions you can see (issue 42, item 5; decision 0127): GET /api/v2/sessions lists the
// caller's own console sessions (device, address, last use; an API key sees its maker's, decision
// 0140: the owner login's for a key the owner, the operator or the CLI made; a parent's user's key
// and an operator's read-only view none),
// DELETE /api/v2/sessions/{id} ends one, DELETE /api/v2/sessions every one but the caller's own.
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { GatewayError } from "../base/core/errors.js";
import { resourceAnswer } from "../base/http/answer-schemas.js";
import { pathId } from "../base/http/query-params.js";
import type { TypedRoutes } from "../base/http/typed-routes.js";
import type { Runtime } from "../base/runtime/runtime.js";
import { actorOf, endSessions, listSessions, loginOf, type SessionOwner } from "../domain/auth/index.js";
import { SessionList, SessionsEnded } from "../domain/auth/user-schemas.js";

type Deps = Pick<Runtime, "store" | "clock">;

/**
 * Whose sessions the caller sees and ends: the user signed in, the user who made the calling key
 * (decision 0140: a key stands for its maker, as PUT /api/v2/password reads it), else the owner
 * login. A key a parent's user made for a sub-account (decision 0143) has no login there: none.
 */
function ownerOf(request: FastifyRequest): SessionOwner | undefined {
  const p = request.principal!;
  const own = loginOf(p);
  return own && { accountId: p.accountId, ...own };
}

/** The owner of the caller's sessions, for a change: a parent's user's key is refused, saying why. */
function ownerToChange(request: FastifyRequest): SessionOwner {
  const owner = ownerOf(request);
  if (owner) return owner;
  const p = request.principal!;
  throw new GatewayError(
    "forbidden",
    `This API key was made by ${p.keyMaker?.login}, a user of the parent of ${p.username}, who has no console sessions in ${p.username}.`,
  );
}

export function registerV2SessionRoutes(v2: TypedRoutes, ctx: Deps): void {
  const tags = ["users"];
  const config = { envelope: "status", errors: [403, 404] } as const;
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
      {
        const owner = request.session?.viewer ? undefined : ownerOf(request);
        return ok(owner ? await listSessions(ctx.store, owner, request.principal!.sessionId) : []);
      },
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
      return ok({ ended: await endSessions(ctx.store, who, ownerToChange(request), { only: id }) });
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
      return ok({ ended: await endSessions(ctx.store, who, ownerToChange(request), { except }) });
    },
  );
}
