// Operator API for inbound numbers, keywords and injection (placeholder until the inbound work lands).
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/context.js";

export function registerInboundAdminRoutes(_admin: FastifyInstance, _ctx: AppContext): void {}
