// Operator API for the SMPP server's binds, under /admin/api/smpp/binds (mounted by app/,
// behind admin/'s operator check): who is bound from where, since when, at what rate, in every
// process; and disconnecting one. Thin adapters over registry.ts.
import { Type } from "typebox";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { DisconnectedBind, SmppBind } from "./admin-schemas.js";
import { disconnectBind, listBinds } from "./registry.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock" | "config">;

export function registerSmppAdminRoutes(admin: TypedRoutes, ctx: Deps): void {
  // The holding process asks its client to unbind and waits this long for the answer.
  const disconnectWaitMs = ctx.config.smppServer.responseTimeoutMs + 5_000;

  admin.get(
    "/smpp/binds",
    {
      schema: {
        summary: "SMPP clients bound to any process, oldest first",
        querystring: Type.Object(
          { username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
          { additionalProperties: false },
        ),
        response: operatorAnswer(Type.Array(SmppBind)),
      },
    },
    async (request) => {
      const { username } = request.query;
      const accountId = username === undefined ? undefined : (await requireAccount(ctx.store.db, username)).id;
      return { status: "success", data: await listBinds(ctx.store.db, ctx.clock.now().getTime(), accountId) };
    },
  );

  admin.delete(
    "/smpp/binds/:id",
    {
      schema: {
        summary: "Unbind one SMPP client: 200 once it is gone, 202 while its process is still closing it",
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: operatorAnswer(DisconnectedBind),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { bind, closed } = await disconnectBind(ctx, id, disconnectWaitMs);
      return reply.code(closed ? 200 : 202).send({ status: "success", data: { ...bind, closed } });
    },
  );
}
