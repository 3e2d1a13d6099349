// The email family (issue 8): /httpemailapi/v1/send and its aliases, sending domains with DKIM,
// stored templates, the smtp and simulator connectors, tracking and notifications.
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/context.js";
import type { Connector } from "../dispatch/connector.js";

/** Connectors of the email channel, started by the worker role with the others. */
export function emailConnectors(_ctx: AppContext): Connector[] {
  return [];
}

/** Mounts the email family's paths and the tracking endpoints. */
export async function registerEmailRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
