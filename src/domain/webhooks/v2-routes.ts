// v2 webhook settings and deliveries of the calling account, under /api/v2/webhooks.
import type { FastifyInstance } from "fastify";
import { isoUtc } from "../../base/core/clock.js";
import { registerWebhookRoutes, type WebhookRouteDeps } from "./routes.js";

export function registerV2WebhookRoutes(v2: FastifyInstance, ctx: WebhookRouteDeps): void {
  registerWebhookRoutes(v2, ctx, {
    base: "/webhooks",
    params: {},
    accountOf: async (request) => request.principal!.accountId,
    iso: (ms) => isoUtc(new Date(ms)),
    tags: ["webhooks"],
    // An operator's read-only view reads the settings, not the credential that signs them.
    showsSecret: (request) => request.session?.viewer === undefined,
  });
}
