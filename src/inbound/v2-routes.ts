// v2 keywords and inbound SMS (placeholder until the inbound work lands).
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/context.js";

export function registerV2InboundRoutes(_v2: FastifyInstance, _ctx: AppContext): void {}
