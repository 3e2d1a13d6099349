// Operator API for an account's webhooks, under /admin/api/accounts/{username}/webhooks: the
// same routes as v2, for the account named in the path.

import type { FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import { requireAccount } from "../accounts/index.js";
import { registerWebhookRoutes, staffReadsSecrets, type WebhookRouteDeps } from "./routes.js";

/** The account the path names; every route of the mount validates its params against it. */
const AccountParams = Type.Object({ username: Type.String({ maxLength: 64 }) });

export function registerWebhookAdminRoutes(admin: TypedRoutes, ctx: WebhookRouteDeps): void {
  registerWebhookRoutes(admin, ctx, {
    base: "/accounts/:username/webhooks",
    params: AccountParams.properties,
    accountOf: async (request: FastifyRequest<{ Params: Static<typeof AccountParams> }>) =>
      (await requireAccount(ctx.store.db, request.params.username)).id,
    iso: (ms) => new Date(ms).toISOString(),
    tags: ["operator"],
    // Staff who change nothing of an account (support, finance) read its settings, not its secret.
    showsSecret: staffReadsSecrets,
  });
}
