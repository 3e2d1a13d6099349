// An invitation's link (decision 0126): GET /console/invitation?token= tells whose it is (the
// console's /invitation page shows it), POST /console/invitation { token, password } sets the
// user's password, after which the link works no more and the user signs in as any other.
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { usernamesOf } from "../../domain/accounts/index.js";
import { acceptInvitation, loginActor, pendingInvitation } from "../../domain/auth/index.js";
import { Invitation } from "../../domain/auth/user-schemas.js";

type Deps = Pick<Runtime, "store" | "clock">;

const Token = Type.String({ minLength: 20, maxLength: 100 });

export function registerInvitationRoutes(scope: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  const accountName = async (id: number) => (await usernamesOf(db, [id])).get(id) ?? "";
  const describe = async (row: Awaited<ReturnType<typeof pendingInvitation>>, expiresAt: number | null) => ({
    account: await accountName(row.account_id),
    login: row.login,
    user_role: row.user_role,
    expires_at: isoUtc(new Date(expiresAt ?? ctx.clock.now().getTime())),
  });

  scope.get(
    "/invitation",
    {
      schema: { querystring: Type.Object({ token: Token }), response: { 200: resourceAnswer(Invitation) }, hide: true },
    },
    async (request) => {
      const row = await pendingInvitation(db, request.query.token, ctx.clock.now().getTime());
      return { status: "success", data: await describe(row, row.invite_expires_at) };
    },
  );

  scope.post(
    "/invitation",
    {
      schema: {
        body: Type.Object(
          { token: Token, password: Type.String({ minLength: 1, maxLength: 1024 }) },
          { additionalProperties: false },
        ),
        response: { 200: resourceAnswer(Invitation) },
        hide: true,
      },
    },
    async (request) => {
      const pending = await pendingInvitation(db, request.body.token, ctx.clock.now().getTime());
      const account = await accountName(pending.account_id);
      const row = await acceptInvitation(
        ctx.store,
        {
          clock: ctx.clock,
          actor: (user) =>
            loginActor({ accountId: user.account_id, username: account }, user.login, {
              channel: "console",
              credential: null,
              address: request.ip,
            }),
        },
        request.body.token,
        request.body.password,
      );
      return { status: "success", data: await describe(row, null) };
    },
  );
}
