// The voice family (issue 9): text-to-speech calls over /voicecall/v1, its connectors and
// the provider's status callbacks. A call is a message (channel voice, wallet voice, route
// voice) accepted, dispatched and reported by the shared pipeline.
//
// Its files (others import this folder through this index only):
//   send-routes.ts     /voicecall/v1/send, post/send, jpost/send: its own body readers (an unreadable
//                      body is no body), apikey auth, GatewayError code → the short set, HTTP 200 text
//   call-policy.ts     VoicePolicy: the checks in their fixed order, the units, the SendOrder for
//                      the Acceptor (channel, wallet and route voice; lane 0; meta with the units)
//   numbers.ts         parseCallNumber: Indian mobiles as SMS, landlines with 0/91, international
//                      E.164 (libphonenumber max), premium rate flagged; dialString
//   billing.ts         estimated speech (15 characters a second) and units per VOICE_SECONDS_PER_UNIT
//   twiml.ts           the <Response><Say> document, escaped; Devanagari spoken as hi-IN
//   caller-ids.ts      approve, list, remove (by username, for the operator API and the CLI);
//                      isApprovedCaller for the send path; the pending ones for the approval queue
//   call-meta.ts       call statuses, their stages, withCallStatus (forward only), callReport
//   call-status.ts     CallStatusIngester: final statuses through applyDeliveryReports with the
//                      delivery_report webhook in the same transaction, every status into the meta
//                      (compare-and-set), unknown calls retried for a minute then logged
//   status-callback.ts POST /voicecall/v1/status-callback: X-Twilio-Signature over VOICE_CALLBACK_URL
//   twilio-signature.ts  the signature (base64 HMAC-SHA1 of URL + sorted name+value pairs)
//   http-connector.ts  VoiceHttpConnector: create call over an undici pool; retries only what placed
//                      no call (429, 5xx, connection not opened); the 4 s start window
//   simulator.ts       VoiceSimulatorConnector: statuses on timers, outcome mix, magic callees, lost
//                      calls walked again
//   admin-routes.ts    /admin/api/accounts/{username}/voice/caller-ids, /admin/api/voice/caller-ids/{id}/approve|reject
//   admin-schemas.ts   their answers as schemas (typebox only: the console's types too)
//   v2-routes.ts       /api/v2/voice/caller-ids (list, request one) and /api/v2/voice/calls (VoicePolicy
//                      and the Acceptor, as /voicecall/v1, answered in the v2 envelope)
//   v2-schemas.ts      the v2 answers' schemas (VoiceCallerId, PlacedCall), shared with the console

import type { FastifyInstance } from "fastify";
import type { Clock } from "../../base/core/clock.js";
import type { VoiceConfig } from "../../base/runtime/config.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Store } from "../../base/store/store.js";
import type { Connector } from "../../delivery/dispatch/index.js";
import type { PriceBook } from "../../domain/accounts/index.js";
import type { Authenticator } from "../../domain/auth/index.js";
import type { AcceptService } from "../../domain/messages/index.js";
import type { WebhookOutbox } from "../../domain/webhooks/outbox.js";
import { CallStatusIngester } from "./call-status.js";
import { VoiceHttpConnector } from "./http-connector.js";
import { registerVoiceSendRoutes } from "./send-routes.js";
import { VoiceSimulatorConnector } from "./simulator.js";
import { registerStatusCallbackRoute, statusCallbackUrl } from "./status-callback.js";

export { registerVoiceAdminRoutes } from "./admin-routes.js";
export { callReport } from "./call-meta.js";
export { VoicePolicy } from "./call-policy.js";
export {
  approveCallerIdFor,
  callerIdsOf,
  pendingCallerIds,
  removeCallerIdFor,
  setCallerIdStatus,
} from "./caller-ids.js";
export { VOICE_SEND_PATHS, type VoiceCaller, voiceCaller } from "./send-routes.js";
export { registerV2VoiceRoutes } from "./v2-routes.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock" | "logger" | "metrics"> & {
  acceptor: AcceptService;
  authenticator: Authenticator;
  webhooks: WebhookOutbox;
};

/** The demo account's caller number (a Bengaluru landline form); the simulator never dials it. */
export const DEMO_CALLER_ID = "+918047110000";

/** Connectors of the voice channel, started by the worker role with the others. */
export function voiceConnectors(ctx: Deps): Connector[] {
  const voice = ctx.config.voice;
  if (voice.connector === "voice-http") {
    // loadConfig refuses voice-http without these.
    return [
      new VoiceHttpConnector(
        {
          baseUrl: voice.httpUrl,
          accountSid: voice.accountSid!,
          authToken: voice.authToken!,
          statusCallbackUrl: statusCallbackUrl(voice.callbackUrl!),
          timeoutMs: voice.timeoutMs,
          concurrency: voice.concurrency,
          say: { language: voice.sayLanguage, voice: voice.sayVoice },
        },
        ctx.logger,
      ),
    ];
  }
  return [
    new VoiceSimulatorConnector(
      {
        seed: ctx.config.simulatorSeed,
        latencyMs: voice.simulatorLatencyMs,
        failureRate: voice.simulatorFailureRate,
        now: () => ctx.clock.now().getTime(),
      },
      new CallStatusIngester(ctx),
      ctx,
    ),
  ];
}

/** Mounts /voicecall/v1/… and the provider's status-callback endpoint (caller numbers: admin/routes.ts). */
export async function registerVoiceRoutes(app: FastifyInstance, ctx: Deps & { prices: PriceBook }): Promise<void> {
  await registerVoiceSendRoutes(app, ctx);
  const ingester = new CallStatusIngester(ctx);
  ingester.start();
  app.addHook("onClose", async () => ingester.stop());
  registerStatusCallbackRoute(app, ctx, ingester);
}

/** Where calls go, in the banner's words: the simulator, or the provider VOICE_CONNECTOR=voice-http names. */
function voiceDestination(voice: Pick<VoiceConfig, "connector" | "httpUrl"> | undefined): string {
  if (voice?.connector === "voice-http") {
    return `calls go to the call provider at ${voice.httpUrl} (VOICE_CONNECTOR=voice-http; real calls, charged by the provider)`;
  }
  return "calls go to the simulated provider (VOICE_CONNECTOR=simulator; nothing is dialled)";
}

/**
 * First start: approves a caller number for the demo account; returns lines for the credentials
 * banner, which say where calls go (`voice`: the server's settings; the simulator when absent).
 */
export async function setUpVoiceDemo(
  store: Store,
  clock: Clock,
  accountId: number,
  voice?: Pick<VoiceConfig, "connector" | "httpUrl">,
): Promise<string[]> {
  await store.db
    .insertInto("voice_caller_ids")
    .values({ account_id: accountId, number: DEMO_CALLER_ID, created_at: clock.now().getTime() })
    .onConflict((oc) => oc.columns(["account_id", "number"]).doNothing())
    .execute();
  const provider =
    voice?.connector === "voice-http"
      ? [
          `           the provider calls only from numbers it gives you: switchboard voice-caller-ids approve --account demo --number <yours>`,
        ]
      : [];
  return [
    `voice:     caller number ${DEMO_CALLER_ID} approved; ${voiceDestination(voice)}`,
    ...provider,
    `           GET /voicecall/v1/send?apikey=<api key>&from=%2B918047110000&to=9876543210&text=Hello+from+Switchboard`,
  ];
}
