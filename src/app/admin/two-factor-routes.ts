// The operator resets a console login's second factor (a lost phone), audited: the login signs in
// with its password alone, or enrols again where a factor is required (auth/two-factor.ts); its
// console sessions end.
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { actorOf, ownerLogin, resetTwoFactor } from "../../domain/auth/index.js";
import { TwoFactorResetAnswer } from "./account-schemas.js";

type Deps = Pick<Runtime, "store" | "clock">;

export function registerTwoFactorResetRoutes(admin: TypedRoutes, ctx: Deps): void {
  admin.delete(
    "/accounts/:username/two-factor",
    {
      schema: {
        summary: "Reset a console login's second factor: the account's owner login, or ?login= one of its users",
        params: Type.Object({ username: Type.String() }),
        querystring: Type.Object(
          { login: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
          { additionalProperties: false },
        ),
        response: operatorAnswer(TwoFactorResetAnswer),
      },
    },
    async (request) => {
      const account = await requireAccount(ctx.store.db, request.params.username);
      const identity = request.query.login
        ? { accountId: account.id, login: request.query.login }
        : ownerLogin(account.id, account.username);
      const who = { clock: ctx.clock, actor: actorOf(request) };
      // The login's sessions end with its factor (the caller's own stays).
      const owner = { accountId: account.id, username: account.username };
      if (!(await resetTwoFactor(ctx.store, who, identity, owner, request.principal?.sessionId)))
        throw new GatewayError(
          "not_found",
          `The login "${identity.login}" of ${account.username} has no second factor.`,
        );
      return { status: "success", data: { username: account.username, login: identity.login, reset: true } };
    },
  );
}
