// Operator API for verify settings: GET and PUT /admin/api/accounts/{username}/verify, mounted by
// app/ behind the operator check.
import { Type } from "typebox";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { VerifySettingsAnswer, VerifySettingsRequest } from "./schemas.js";
import { changeVerifySettings, describeVerifySettings, type VerifySettingsChange, verifySettings } from "./settings.js";

type Deps = Pick<Runtime, "store" | "clock">;

const Username = Type.Object({ username: Type.String({ maxLength: 64 }) });

export function registerVerifyAdminRoutes(admin: TypedRoutes, ctx: Deps): void {
  admin.get(
    "/accounts/:username/verify",
    {
      schema: {
        summary: "An account's verify settings",
        tags: ["operator"],
        params: Username,
        response: operatorAnswer(VerifySettingsAnswer),
      },
    },
    async (request) => {
      const account = await requireAccount(ctx.store.db, request.params.username);
      return { status: "success", data: describeVerifySettings(await verifySettings(ctx.store.db, account.id)) };
    },
  );

  admin.put(
    "/accounts/:username/verify",
    {
      schema: {
        summary: "Set an account's verify settings (the fields named; null clears one)",
        tags: ["operator"],
        params: Username,
        body: VerifySettingsRequest,
        response: operatorAnswer(VerifySettingsAnswer),
      },
    },
    async (request) => {
      const account = await requireAccount(ctx.store.db, request.params.username);
      const change = (request.body ?? {}) as VerifySettingsChange;
      const settings = await changeVerifySettings(ctx.store.db, ctx.clock, account.id, change);
      return { status: "success", data: describeVerifySettings(settings) };
    },
  );
}
