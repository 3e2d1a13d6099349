// The operator's view of login locks (auth/login-locks.ts): which addresses and accounts are
// locked out of password logins, and clearing them before they expire.

import { Type } from "typebox";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { clearLoginLocks, listLoginLocks } from "../../domain/auth/index.js";
import { LoginLock, LoginLocksCleared } from "./account-schemas.js";
import { changeDeps } from "./operations.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

export function registerLoginLockRoutes(admin: TypedRoutes, ctx: Deps): void {
  admin.get(
    "/login-locks",
    {
      schema: {
        summary: "Login locks in force: accounts and source addresses",
        response: operatorAnswer(Type.Array(LoginLock)),
      },
    },
    async () => ({
      status: "success",
      data: await listLoginLocks(ctx.store.db, ctx.clock.now().getTime()),
    }),
  );

  admin.delete(
    "/accounts/:username/login-locks",
    {
      schema: {
        summary: "Clear an account's login locks: one source address's (?address=), or all with the account's own",
        params: Type.Object({ username: Type.String() }),
        querystring: Type.Object(
          { address: Type.Optional(Type.String({ minLength: 1, maxLength: 160 })) },
          { additionalProperties: false },
        ),
        response: operatorAnswer(LoginLocksCleared),
      },
    },
    async (request) => {
      const { username } = request.params;
      const { address } = request.query;
      const result = await clearLoginLocks(ctx.store, changeDeps(ctx, request), username, address);
      return { status: "success", data: result };
    },
  );
}
