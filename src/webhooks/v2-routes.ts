// v2 webhook settings and deliveries of the calling account, under /api/v2/webhooks.
import type { FastifyInstance } from "fastify";
import { isoUtc } from "../core/clock.js";
import { registerWebhookRoutes } from "./routes.js";

/** What this file takes from the gateway. */
type Deps = Parameters<typeof registerWebhookRoutes>[1];

export function registerV2WebhookRoutes(v2: FastifyInstance, ctx: Deps): void {
  registerWebhookRoutes(v2, ctx, {
    base: "/webhooks",
    params: {},
    accountOf: async (request) => request.principal!.accountId,
    iso: (ms) => isoUtc(new Date(ms)),
    tags: ["webhooks"],
  });
}
