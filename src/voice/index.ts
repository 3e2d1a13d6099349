// The voice family (issue 9): text-to-speech calls over /voicecall/v1, its connectors and
// the provider's status callbacks.
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/context.js";
import type { Clock } from "../core/clock.js";
import type { Connector } from "../dispatch/connector.js";
import type { Store } from "../store/store.js";

/** Connectors of the voice channel, started by the worker role with the others. */
export function voiceConnectors(_ctx: AppContext): Connector[] {
  return [];
}

/** Mounts /voicecall/v1/… and the provider's status-callback endpoint. */
export async function registerVoiceRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}

/** First start: makes the demo account able to place calls; returns lines for the credentials banner. */
export async function setUpVoiceDemo(_store: Store, _clock: Clock, _accountId: number): Promise<string[]> {
  return [];
}
