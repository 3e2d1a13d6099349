// v2 contact groups and their contacts (placeholder until the contacts work lands).
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/context.js";

export function registerV2ContactRoutes(_v2: FastifyInstance, _ctx: AppContext): void {}
