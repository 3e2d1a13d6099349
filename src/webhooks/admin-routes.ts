// Operator API for an account's webhooks, under /admin/api/accounts/{username}/webhooks: the
// same routes as v2, for the account named in the path.

import { Type } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { requireAccount } from "../accounts/index.js";
import { registerWebhookRoutes, type WebhookRouteDeps } from "./routes.js";

export function registerWebhookAdminRoutes(admin: FastifyInstance, ctx: WebhookRouteDeps): void {
  registerWebhookRoutes(admin, ctx, {
    base: "/accounts/:username/webhooks",
    params: { username: Type.String({ maxLength: 64 }) },
    accountOf: async (request) =>
      (await requireAccount(ctx.store.db, (request.params as { username: string }).username)).id,
    iso: (ms) => new Date(ms).toISOString(),
    tags: ["operator"],
  });
}
