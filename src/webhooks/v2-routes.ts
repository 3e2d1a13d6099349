// v2 webhook settings and deliveries (placeholder until the webhook API lands).
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/context.js";

export function registerV2WebhookRoutes(_v2: FastifyInstance, _ctx: AppContext): void {}
