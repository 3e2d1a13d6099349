// Operator API for verify settings: GET and PUT /admin/api/accounts/{username}/verify, and the
// pumping guard's prefixes: GET …/verify/prefixes, PUT …/verify/prefixes/{prefix} (allow one).
// Mounted by app/ behind the operator check.
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { actorOf } from "../../domain/auth/index.js";
import { allowVerifyPrefix, PREFIX_DIGITS, verifyPrefixes } from "./guards.js";
import { VerifyPrefix, VerifyPrefixChange, VerifySettingsAnswer, VerifySettingsRequest } from "./schemas.js";
import {
  changeVerifySettingsFor,
  describeVerifySettings,
  type VerifySettingsChange,
  verifySettings,
} from "./settings.js";

type Deps = Pick<Runtime, "store" | "clock" | "logger">;

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
      const who = { clock: ctx.clock, actor: actorOf(request) };
      const settings = await changeVerifySettingsFor(ctx.store, who, account, change);
      return { status: "success", data: describeVerifySettings(settings) };
    },
  );

  admin.get(
    "/accounts/:username/verify/prefixes",
    {
      schema: {
        summary: "The destination prefixes the pumping guard blocked, and those the operator allowed",
        tags: ["operator"],
        params: Username,
        response: operatorAnswer(Type.Array(VerifyPrefix)),
      },
    },
    async (request) => {
      const account = await requireAccount(ctx.store.db, request.params.username);
      return { status: "success", data: await verifyPrefixes(ctx.store.db, account.id, ctx.clock.now().getTime()) };
    },
  );

  admin.put(
    "/accounts/:username/verify/prefixes/:prefix",
    {
      schema: {
        summary: "Allow a prefix (the pumping guard no longer blocks it), or guard it again",
        tags: ["operator"],
        params: Type.Object({ username: Type.String({ maxLength: 64 }), prefix: Type.String({ maxLength: 20 }) }),
        body: VerifyPrefixChange,
        response: operatorAnswer(Type.Array(VerifyPrefix)),
      },
    },
    async (request) => {
      const account = await requireAccount(ctx.store.db, request.params.username);
      const prefix = request.params.prefix;
      if (!new RegExp(`^\\d{${PREFIX_DIGITS}}$`).test(prefix)) {
        throw new GatewayError(
          "invalid_request",
          `A prefix is the first ${PREFIX_DIGITS} digits of the numbers with their country code, e.g. 919876 (got "${prefix}").`,
          { field: "prefix" },
        );
      }
      await allowVerifyPrefix(
        ctx,
        { clock: ctx.clock, actor: actorOf(request) },
        account,
        prefix,
        request.body.allowed,
      );
      return { status: "success", data: await verifyPrefixes(ctx.store.db, account.id, ctx.clock.now().getTime()) };
    },
  );
}
