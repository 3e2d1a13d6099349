// The voice family (issue 9): text-to-speech calls over /voicecall/v1, its connectors and
// the provider's status callbacks.
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/context.js";
import type { Connector } from "../dispatch/connector.js";

/** Connectors of the voice channel, started by the worker role with the others. */
export function voiceConnectors(_ctx: AppContext): Connector[] {
  return [];
}

/** Mounts /voicecall/v1/… and the provider's status-callback endpoint. */
export async function registerVoiceRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
