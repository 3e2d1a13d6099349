// Operator API for an account's webhooks, under /admin/api/accounts/{username}/webhooks: the
// same routes as v2, for the account named in the path.

import { Type } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { requireAccount } from "../accounts/index.js";
import type { Runtime } from "../runtime/runtime.js";
import { registerWebhookRoutes } from "./routes.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock">;

export function registerWebhookAdminRoutes(admin: FastifyInstance, ctx: Deps): void {
  registerWebhookRoutes(admin, ctx, {
    base: "/accounts/:username/webhooks",
    params: { username: Type.String({ maxLength: 64 }) },
    accountOf: async (request) =>
      (await requireAccount(ctx.store.db, (request.params as { username: string }).username)).id,
    iso: (ms) => new Date(ms).toISOString(),
    tags: ["operator"],
  });
}
