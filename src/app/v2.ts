// The v2 family: API-key auth for every route, then the key's rate limit; errors in the v2 envelope.

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { GatewayError } from "../base/core/errors.js";
import { sendJsonError } from "../base/http/http-errors.js";
import { dropNullOptionals } from "../base/http/null-fields.js";
import { completeV2Route } from "../base/http/openapi.js";
import { refuseUndeclaredQuery } from "../base/http/query-params.js";
import { registerV2ChainRoutes } from "../channels/chains/index.js";
import { registerV2EmailRoutes, registerV2EmailSendRoute } from "../channels/email/index.js";
import { firstInboundNumber, registerV2InboundRoutes } from "../channels/inbound/index.js";
import { registerV2SmppRoutes } from "../channels/smpp-server/index.js";
import { registerV2SmsRoutes } from "../channels/sms/index.js";
import { registerV2VerifyRoutes } from "../channels/verify/index.js";
import { registerV2VoiceRoutes } from "../channels/voice/index.js";
import { registerV2WhatsAppRoutes } from "../channels/whatsapp/index.js";
import { partsOfMessage } from "../delivery/carriers/smpp/index.js";
import { type AccountTraffic, registerV2AccountRoutes } from "../domain/accounts/index.js";
import {
  admitCaller,
  authenticateV2,
  credentialBeforeBody,
  dropKeyFields,
  type RateLimitOutcome,
} from "../domain/auth/index.js";
import { registerV2ContactRoutes } from "../domain/contacts/index.js";
import { floodCount, messageCount, refundedBroadcasts, smsSent } from "../domain/messages/index.js";
import { registerV2RefusalRoutes } from "../domain/refusals/index.js";
import { registerV2WebhookRoutes } from "../domain/webhooks/v2-routes.js";
import { labelAccess, type RouteAccess, requireAccess } from "./access.js";
import { registerV2AnalyticsRoutes } from "./analytics-routes.js";
import { registerV2AuditRoutes } from "./audit-routes.js";
import type { AppContext } from "./context.js";
import { registerV2PasswordRoutes } from "./password-routes.js";
import { registerV2SessionRoutes } from "./session-list-routes.js";
import { registerV2TwoFactorRoutes } from "./two-factor-routes.js";
import { registerV2UserRoutes } from "./user-routes.js";

/** What the account routes count of messages/ tables (accounts/ sits below messages/ and cannot import it). */
const accountTraffic: AccountTraffic = { smsSent, messageCount, floodCount, refundedBroadcasts };

const WHATSAPP_PREFIX = "/api/v2/whatsapp/";

export async function registerV2Family(v2: FastifyInstance, ctx: AppContext, labelled: RouteAccess[]): Promise<void> {
  v2.addHook("onRoute", completeV2Route);
  v2.addHook("onRoute", labelAccess("v2", "/api/v2", labelled));
  // JSON only: a form or text body is refused with 415 (the catch-all parser's error), never read as fields.
  v2.removeContentTypeParser(["application/x-www-form-urlencoded", "text/plain"]);
  v2.setErrorHandler((error, request, reply) =>
    sendJsonError(request, reply, error, request.routeOptions.config.envelope ?? "status"),
  );
  // A caller whose key is in a header or the query (or whose console session is in a cookie) is
  // checked before its body is read; one whose key can only be in the JSON body, once it is parsed.
  v2.addHook("onRequest", async (request, reply) => {
    if (request.routeOptions.config.public || !credentialBeforeBody(request)) return;
    await admitV2Caller(request, reply, ctx);
  });
  v2.addHook("preValidation", async (request, reply) => {
    if (request.routeOptions.config.public) return;
    if (!request.principal) await admitV2Caller(request, reply, ctx);
    else dropKeyFields(request);
    requireAccess(request);
    refuseUndeclaredQuery(request);
  });
  // An optional field sent as null is not sent (base/http/null-fields.ts).
  v2.addHook("preValidation", dropNullOptionals);
  // A message's timeline shows its SMPP parts (sms/ sits below carriers/).
  registerV2SmsRoutes(v2, { ...ctx, messageParts: partsOfMessage });
  registerV2AccountRoutes(v2, { ...ctx, accountTraffic });
  registerV2ContactRoutes(v2, ctx);
  registerV2InboundRoutes(v2, ctx);
  registerV2WebhookRoutes(v2, { ...ctx, firstInboundNumber });
  registerV2SmppRoutes(v2, ctx);
  registerV2WhatsAppRoutes(v2, ctx);
  registerV2EmailRoutes(v2, ctx);
  registerV2EmailSendRoute(v2, ctx);
  registerV2VoiceRoutes(v2, ctx);
  registerV2RefusalRoutes(v2, ctx);
  registerV2AuditRoutes(v2, ctx);
  registerV2AnalyticsRoutes(v2, ctx);
  registerV2VerifyRoutes(v2, ctx);
  registerV2ChainRoutes(v2, ctx);
  registerV2UserRoutes(v2, ctx);
  registerV2SessionRoutes(v2, ctx);
  registerV2PasswordRoutes(v2, ctx);
  registerV2TwoFactorRoutes(v2, ctx);
}

function setRateLimitHeaders(reply: FastifyReply, outcome: RateLimitOutcome): void {
  reply.header("x-ratelimit-limit", String(outcome.limit));
  reply.header("x-ratelimit-remaining", String(outcome.remaining));
  reply.header("x-ratelimit-reset", String(outcome.resetSeconds));
}

/** Finds the v2 caller, admits its credential to the route, and counts the request against its key's rate limit. */
async function admitV2Caller(request: FastifyRequest, reply: FastifyReply, ctx: AppContext): Promise<void> {
  const principal = await authenticateV2(request, ctx);
  // WhatsApp's 403 means "module disabled" to the spec's clients: a key refused here is a 401.
  admitCaller(request, principal, request.routeOptions.url?.startsWith(WHATSAPP_PREFIX) ? 401 : undefined);
  // Every v2 request counts once, whatever it carries (a bulk send of many recipients too).
  if (principal.keyId === undefined || !principal.rateLimit) return;
  const outcome = await ctx.rateLimits.consume(principal.keyId, principal.rateLimit);
  if (!outcome) return;
  setRateLimitHeaders(reply, outcome);
  if (!outcome.allowed) {
    throw new GatewayError(
      "rate_limited",
      `Rate limit of ${outcome.limit} requests per minute exceeded for this API key; retry in ${outcome.resetSeconds} s.`,
      { retry_after: outcome.resetSeconds },
    );
  }
}
