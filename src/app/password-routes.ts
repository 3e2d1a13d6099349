// A login's own password change (issue 42; decision 0132): PUT /api/v2/password
// { current_password, new_password }. The current password is checked as a sign-in checks it (the
// same login locks: a stolen session cannot guess it); the owner login's is the account's
// password, a user's their own. An API key stands for its maker (decision 0140): a user's key
// changes that user's password, the owner login's key the account's; a key a parent's user made
// for a sub-account has no login there and is refused. Every other session of the login ends, the
// one the change came with stays; audited (`password.change`) in the change's transaction.
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { GatewayError } from "../base/core/errors.js";
import { resourceAnswer } from "../base/http/answer-schemas.js";
import type { TypedRoutes } from "../base/http/typed-routes.js";
import type { Runtime } from "../base/runtime/runtime.js";
import { updateAccount } from "../domain/accounts/index.js";
import { recordChange } from "../domain/audit/index.js";
import {
  type Authenticator,
  actorOf,
  changeUserPassword,
  checkPassword,
  keepOnlySession,
  loginOf,
  type Principal,
  passwordChangeEntry,
} from "../domain/auth/index.js";
import { PasswordChanged } from "../domain/auth/user-schemas.js";

type Deps = Pick<Runtime, "store" | "clock"> & { authenticator: Authenticator };

const PasswordChange = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 1024 }),
    new_password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false, title: "PasswordChange" },
);

/**
 * The login whose password the caller changes: the user signed in, the user who made the calling
 * key, else the owner login (userId undefined). A key a parent's user made is refused.
 */
function ownLoginOf(p: Principal): { login: string; userId: number | undefined } {
  const own = loginOf(p);
  if (!own) {
    throw new GatewayError(
      "forbidden",
      `This API key was made by ${p.keyMaker?.login}, a user of the parent of ${p.username}, who has no password in ${p.username}: change it with the parent account's own credentials.`,
    );
  }
  return { login: own.login, userId: own.userId ?? undefined };
}

/** Checks the login's current password through the login locks; a wrong one names its field. */
async function checkCurrent(
  ctx: Deps,
  request: FastifyRequest,
  own: { login: string; userId: number | undefined },
  password: string,
): Promise<void> {
  const p = request.principal!;
  try {
    await ctx.authenticator.verifySignIn(
      p.username,
      own.userId === undefined ? undefined : own.login,
      password,
      request.ip,
    );
  } catch (error) {
    // 401 would read as "signed out" to the console: this is a wrong field of a form.
    if (error instanceof GatewayError && error.code === "unauthorized") {
      throw new GatewayError("invalid_request", "The current password is wrong.", { field: "current_password" });
    }
    throw error;
  }
}

export function registerV2PasswordRoutes(v2: TypedRoutes, ctx: Deps): void {
  v2.put(
    "/password",
    {
      config: { envelope: "status" },
      schema: {
        operationId: "changePassword",
        summary:
          "Changes your own password (the owner login's is the account's; a user's key changes its maker's): the current one is asked; your other sessions end",
        tags: ["users"],
        body: PasswordChange,
        response: { 200: resourceAnswer(PasswordChanged) },
      },
    },
    async (request) => {
      const p = request.principal!;
      const { current_password: current, new_password: password } = request.body;
      const own = ownLoginOf(p);
      checkPassword(password, "new_password");
      await checkCurrent(ctx, request, own, current);
      const who = { clock: ctx.clock, actor: actorOf(request) };
      const keep = p.sessionId;
      const { login, userId } = own;
      let ended = 0;
      if (userId !== undefined) {
        const user = { accountId: p.accountId, username: p.username, userId, login, keep };
        ended = await changeUserPassword(ctx.store, who, user, password);
      } else {
        await updateAccount(ctx.store, ctx.clock, p.username, { password }, async (trx, _before, after) => {
          const owner = { accountId: p.accountId, userId: null };
          ended = await keepOnlySession(trx, owner, keep, after.password_hash);
          await recordChange(trx, who, passwordChangeEntry(login, p.username, p.accountId, ended));
        });
      }
      return { status: "success", data: { login, sessions_ended: ended } };
    },
  );
}
