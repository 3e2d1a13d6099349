// Operator API for accounts' webhooks (placeholder until the webhook API lands).
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/context.js";

export function registerWebhookAdminRoutes(_admin: FastifyInstance, _ctx: AppContext): void {}
