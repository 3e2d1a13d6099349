// The provider's status callbacks: form POSTs to {VOICE_CALLBACK_URL}/voicecall/v1/status-callback
// with CallSid, CallStatus, CallDuration, …, signed with X-Twilio-Signature over exactly that
// URL. Unsigned or forged callbacks are refused (403); a callback for a call the gateway does
// not know is acknowledged and logged, so the provider does not retry it.

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { statusOf, toGatewayError } from "../../base/http/http-errors.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { VOICE_HTTP_CONNECTOR } from "../../delivery/dispatch/index.js";
import { UPSTREAM_ID_MAX_LENGTH } from "../../domain/messages/index.js";
import { isCallStatus } from "./call-meta.js";
import type { CallStatusIngester } from "./call-status.js";
import { type FormParams, validTwilioSignature } from "./twilio-signature.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "clock">;

export const STATUS_CALLBACK_PATH = "/voicecall/v1/status-callback";

/** The URL the provider is told to call back, and the one its signatures cover. */
export function statusCallbackUrl(callbackBase: string): string {
  return `${callbackBase.replace(/\/+$/, "")}${STATUS_CALLBACK_PATH}`;
}

function formParams(body: unknown): FormParams {
  // Without a prototype: a field named __proto__ is a parameter (signed like the rest), not the object's prototype.
  const params: Record<string, string | string[]> = Object.create(null);
  if (body === null || typeof body !== "object" || Array.isArray(body)) return params;
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === "string") params[name] = value;
    else if (Array.isArray(value)) params[name] = value.map(String);
  }
  return params;
}

function one(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === "string" ? value : value?.[0];
}

function plain(reply: FastifyReply, status: number, text: string) {
  return reply.code(status).type("text/plain; charset=utf-8").send(text);
}

export function registerStatusCallbackRoute(app: FastifyInstance, ctx: Deps, ingester: CallStatusIngester): void {
  const { authToken, accountSid, callbackUrl } = ctx.config.voice;

  app.post(STATUS_CALLBACK_PATH, {
    schema: { summary: "Status callbacks of the voice-http provider", hide: true },
    errorHandler: (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
      const gatewayError = toGatewayError(error);
      if (statusOf(gatewayError) >= 500) request.log.error({ err: error }, "voice status callback failed");
      return plain(reply, statusOf(gatewayError), gatewayError.message);
    },
    handler: async (request, reply) => {
      if (!authToken || !callbackUrl) {
        return plain(
          reply,
          403,
          "Status callbacks are refused: VOICE_HTTP_AUTH_TOKEN and VOICE_CALLBACK_URL are not set.",
        );
      }
      const params = formParams(request.body);
      const at = request.url.indexOf("?");
      const url = statusCallbackUrl(callbackUrl) + (at >= 0 ? request.url.slice(at) : "");
      const signature = request.headers["x-twilio-signature"];
      if (!validTwilioSignature(authToken, typeof signature === "string" ? signature : undefined, url, params)) {
        request.log.warn(
          { call_sid: one(params.CallSid) },
          "voice status callback with a missing or wrong signature; refused",
        );
        return plain(reply, 403, "Missing or invalid X-Twilio-Signature.");
      }
      const account = one(params.AccountSid);
      if (accountSid && account !== undefined && account !== accountSid) {
        return plain(reply, 403, "The callback is for another provider account.");
      }
      const callSid = one(params.CallSid);
      const status = one(params.CallStatus);
      if (!callSid || !status) return plain(reply, 400, "CallSid and CallStatus are required.");
      // A provider's call id is a few dozen characters; it is looked up and kept in the call's meta.
      if (callSid.length > UPSTREAM_ID_MAX_LENGTH) {
        return plain(reply, 400, `CallSid is longer than ${UPSTREAM_ID_MAX_LENGTH} characters.`);
      }
      if (!isCallStatus(status)) {
        request.log.warn(
          { call_sid: callSid, call_status: status },
          "voice status callback with an unknown status; ignored",
        );
        return reply.code(204).send();
      }
      const duration = one(params.CallDuration);
      const timestamp = Date.parse(one(params.Timestamp) ?? "");
      await ingester.apply([
        {
          connector: VOICE_HTTP_CONNECTOR,
          callSid,
          status,
          at: Number.isFinite(timestamp) ? timestamp : ctx.clock.now().getTime(),
          durationSeconds: duration !== undefined && /^\d{1,7}$/.test(duration) ? Number(duration) : undefined,
        },
      ]);
      return reply.code(204).send();
    },
  });
}
