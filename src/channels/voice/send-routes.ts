// The voice family: GET /voicecall/v1/send (query), POST /voicecall/v1/post/send (form) and
// POST /voicecall/v1/jpost/send (JSON), with apikey, from, to and text. The answer is plain
// text: the broadcast id, or a code of the spec's short set (-1, -4, -5, -6, -7, -10, -12,
// -14), always with HTTP 200. Each POST path reads a form or JSON by its Content-Type (clients
// mix the two up); a body the gateway cannot read counts as no body.

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type ErrorCode, GatewayError } from "../../base/core/errors.js";
import {
  jsonBodyNotUtf8,
  notUtf8Parameter,
  notUtf8Query,
  queryNotUtf8,
  urlencodedBodyOf,
} from "../../base/http/body-text.js";
import { acceptFormData, isUnreadableForm } from "../../base/http/form-data.js";
import { noteRefusal, toGatewayError } from "../../base/http/http-errors.js";
import { nestsDeeperThan } from "../../base/http/json-depth.js";
import { ambiguityReason, gatherParams, isJsonBody } from "../../base/http/param-bags.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { PriceBook } from "../../domain/accounts/index.js";
import { type Authenticator, admitCaller, type Principal } from "../../domain/auth/index.js";
import type { AcceptService } from "../../domain/messages/index.js";
import { type VoiceCallInput, VoicePolicy } from "./call-policy.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock"> & {
  acceptor: AcceptService;
  authenticator: Authenticator;
  prices: PriceBook;
};

export const VOICE_SEND_PATHS = {
  query: "/voicecall/v1/send",
  form: "/voicecall/v1/post/send",
  json: "/voicecall/v1/jpost/send",
} as const;

/** Far above any accepted text (1,000 characters, at most 12 KB URL-encoded); larger bodies answer -6. */
const MAX_BODY_BYTES = 64 * 1024;

/** Each refusal in the family's words. */
const VOICE_CODES: Partial<Record<ErrorCode, number>> = {
  missing_api_key: -1,
  unauthorized: -7,
  account_inactive: -7,
  account_locked: -7,
  insufficient_scope: -7,
  address_not_allowed: -7,
  missing_sender_id: -4,
  invalid_recipient: -5,
  missing_message: -6,
  message_too_long: -6,
  content_not_allowed: -6,
  invalid_sender_id: -10,
  international_disabled: -10,
  insufficient_credits: -12,
};
const INTERNAL_ERROR = -14;

/** The voice answer for an error: its code of the short set, -14 for anything else. */
export function voiceCode(error: GatewayError): number {
  return VOICE_CODES[error.code] ?? INTERNAL_ERROR;
}

type Params = Record<string, string>;

/**
 * Query and body merged (body wins), names lower-cased; JSON numbers count as text (a `to` written
 * 9876543210). A name given twice with different values, or as a JSON array (`"to": [a, b]`, two
 * calls asked for where one is placed), is refused by its code (base/http/param-bags.ts).
 */
function voiceParams(request: FastifyRequest): { params: Params; ambiguous: string[] } {
  return gatherParams(
    [{ values: request.query }, { values: request.body, json: isJsonBody(request.headers["content-type"]) }],
    NO_LISTS,
  );
}

const NO_LISTS: ReadonlySet<string> = new Set();
/** The parameters the family reads, each refused by its own code when given twice with different values. */
const REPEAT_CODES: ReadonlyMap<string, ErrorCode> = new Map([
  ["from", "invalid_sender_id"],
  ["to", "invalid_recipient"],
  ["text", "missing_message"],
]);

/** The refusal of a parameter given twice with different values: -7 for the key (before it is tried), else its code. */
function repeatedParameter(ambiguous: readonly string[], before: "key" | "call"): GatewayError | undefined {
  const name =
    before === "key"
      ? ambiguous.find((n) => n === "apikey" || n === "api_key")
      : ambiguous.find((n) => REPEAT_CODES.has(n));
  if (name === undefined) return undefined;
  return new GatewayError(REPEAT_CODES.get(name) ?? "unauthorized", ambiguityReason(name), { field: name });
}

function answer(reply: FastifyReply, text: string) {
  return reply.code(200).type("text/plain; charset=utf-8").send(text);
}

function sendVoiceError(request: FastifyRequest, reply: FastifyReply, raw: unknown) {
  const error =
    (raw as { code?: string }).code === "FST_ERR_CTP_BODY_TOO_LARGE"
      ? new GatewayError("message_too_long", `The request body is larger than ${MAX_BODY_BYTES} bytes.`)
      : isUnreadableForm(raw)
        ? new GatewayError("missing_message", `The form cannot be read: ${(raw as Error).message}`)
        : toGatewayError(raw);
  noteRefusal(request, error);
  const code = voiceCode(error);
  if (code === INTERNAL_ERROR) request.log.error({ err: raw }, "voice call failed");
  return answer(reply, String(code));
}

/** One text-to-speech call, checked, charged and stored; its broadcast id. */
export type VoiceCaller = (principal: Principal, call: VoiceCallInput) => Promise<string>;

/** Places calls as this family does: its own routes and the legacy send's route V use it. */
export function voiceCaller(ctx: Deps): VoiceCaller {
  const policy = new VoicePolicy(ctx.store, ctx.clock, ctx.config.voice, ctx.prices);
  return async (principal, call) => {
    const outcome = await ctx.acceptor.accept(await policy.decide(principal, call));
    if (outcome.kind !== "accepted") throw new GatewayError("internal_error");
    return outcome.send.broadcastId;
  };
}

export async function registerVoiceSendRoutes(app: FastifyInstance, ctx: Deps): Promise<void> {
  const placeCall = voiceCaller(ctx);

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const { params, ambiguous } = voiceParams(request);
      const unclearKey = repeatedParameter(ambiguous, "key");
      if (unclearKey) throw unclearKey;
      const key = (params.apikey ?? params.api_key)?.trim();
      if (!key) throw new GatewayError("missing_api_key", "Missing API key (apikey).");
      const principal = await ctx.authenticator.byApiKey(key);
      request.principal = principal;
      admitCaller(request, principal);
      // A query escape that is not UTF-8 (`caf%E9`) was spoken as its escapes: -6, its text unreadable
      // (after an account that is not active, whose -7 the call's checks answer first).
      const notUtf8 = principal.status === "active" ? queryNotUtf8(request.raw.url) : undefined;
      if (notUtf8 !== undefined) throw new GatewayError("missing_message", notUtf8Query(notUtf8).message);
      const repeated = principal.status === "active" ? repeatedParameter(ambiguous, "call") : undefined;
      if (repeated) throw repeated;
      return answer(reply, await placeCall(principal, { from: params.from, to: params.to, text: params.text }));
    } catch (error) {
      return sendVoiceError(request, reply, error);
    }
  };

  await app.register(async (voice) => {
    // This family's own body readers: an unreadable or unexpected body is no body, so the
    // answer is the code of what is then missing, never a JSON error page.
    voice.removeAllContentTypeParsers();
    // A body whose text is not UTF-8 (as declared) is refused -6, its text unreadable, never read
    // with U+FFFD in place of its bytes (decision 0186's addendum, base/http/body-text.ts).
    voice.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
      // Nested past any call's shape: no body, like unreadable JSON (and never a long parse).
      if (nestsDeeperThan(body as Buffer)) {
        done(null, undefined);
        return;
      }
      const notUtf8 = jsonBodyNotUtf8(request, body as Buffer);
      if (notUtf8) {
        done(new GatewayError("missing_message", notUtf8.message), undefined);
        return;
      }
      try {
        done(null, JSON.parse((body as Buffer).toString("utf8")));
      } catch {
        done(null, undefined);
      }
    });
    voice.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "buffer" }, (request, body, done) => {
      try {
        const read = urlencodedBodyOf(request, body as Buffer);
        if (read.notUtf8 !== undefined) throw notUtf8Parameter(read.notUtf8);
        // A name given twice stays a list: voiceParams judges it.
        done(null, read.form);
      } catch (error) {
        // The text cannot be read: -6, the reason in the log of refusals.
        done(new GatewayError("missing_message", (error as Error).message), undefined);
      }
    });
    await acceptFormData(voice, MAX_BODY_BYTES, {
      notUtf8: (name) => new GatewayError("missing_message", notUtf8Parameter(name).message),
    });
    voice.addContentTypeParser("*", { parseAs: "buffer" }, (_request, _body, done) => done(null, undefined));

    const routes = [
      ["GET", VOICE_SEND_PATHS.query, "Place a text-to-speech call (query parameters)"],
      ["POST", VOICE_SEND_PATHS.form, "Place a text-to-speech call (form parameters)"],
      ["POST", VOICE_SEND_PATHS.json, "Place a text-to-speech call (JSON body)"],
    ] as const;
    for (const [method, url, summary] of routes) {
      voice.route({
        method,
        url,
        // A HEAD (a link checker, a monitor) must not place a call.
        exposeHeadRoute: false,
        bodyLimit: MAX_BODY_BYTES,
        schema: { summary, hide: true },
        handler: handle,
        errorHandler: (error: unknown, request: FastifyRequest, reply: FastifyReply) =>
          sendVoiceError(request, reply, error),
      });
    }
  });
}
