// v2 webhook settings and deliveries of the calling account, under /api/v2/webhooks.
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/context.js";
import { isoUtc } from "../core/clock.js";
import { registerWebhookRoutes } from "./routes.js";

export function registerV2WebhookRoutes(v2: FastifyInstance, ctx: AppContext): void {
  registerWebhookRoutes(v2, ctx, {
    base: "/webhooks",
    params: {},
    accountOf: async (request) => request.principal!.accountId,
    iso: (ms) => isoUtc(new Date(ms)),
    tags: ["webhooks"],
  });
}
