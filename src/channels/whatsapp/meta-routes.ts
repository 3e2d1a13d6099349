// Meta's webhook for the WhatsApp Cloud API, at /webhooks/whatsapp: GET answers the
// verify-token challenge when the callback URL is registered; POST takes callbacks signed with
// X-Hub-Signature-256 (the app secret over the raw body), stores what they say, then answers 200.
// A callback that could not be stored answers 500, so Meta delivers it again.

import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { MetaWebhookError, parseMetaWebhook, verifyMetaSignature } from "./meta-webhook.js";
import type { WhatsApp } from "./whatsapp.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config"> & { whatsapp: WhatsApp };

const META_WEBHOOK_PATH = "/webhooks/whatsapp";
/** Meta's callbacks are small; a batch of statuses stays far below this. */
const BODY_LIMIT = 1024 * 1024;
/**
 * What Meta's verification request carries, each as the query parser gives it (a name sent twice
 * is a list): a mode or token that is not the expected string is refused as a wrong token, not
 * as a bad request.
 */
const VerifyQuery = Type.Object({
  "hub.mode": Type.Optional(Type.Unknown()),
  "hub.verify_token": Type.Optional(Type.Unknown()),
  "hub.challenge": Type.Optional(Type.Unknown()),
});

export async function registerMetaWebhookRoutes(app: TypedRoutes, ctx: Deps): Promise<void> {
  const { appSecret, verifyToken } = ctx.config.whatsapp;
  await app.register(async (scope: TypedRoutes) => {
    // The signature covers the bytes Meta sent, so the body is kept raw and parsed after the check.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );

    const verify = { schema: { hide: true, querystring: VerifyQuery }, config: { public: true } };
    scope.get(META_WEBHOOK_PATH, verify, async (request, reply) => {
      const query = request.query;
      if (!verifyToken) {
        throw new GatewayError(
          "forbidden",
          "WHATSAPP_VERIFY_TOKEN is not set on this gateway; verification is refused.",
        );
      }
      if (query["hub.mode"] !== "subscribe" || query["hub.verify_token"] !== verifyToken) {
        throw new GatewayError("forbidden", "The verify token does not match WHATSAPP_VERIFY_TOKEN.");
      }
      const challenge = query["hub.challenge"] ?? "";
      // Meta sends one challenge; a repeated or structured one is no challenge to echo.
      if (typeof challenge !== "string") {
        throw new GatewayError("invalid_request", "hub.challenge must be given once, as text.");
      }
      return reply.type("text/plain; charset=utf-8").send(challenge);
    });

    scope.post(META_WEBHOOK_PATH, { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
      if (!appSecret) {
        throw new GatewayError("forbidden", "WHATSAPP_APP_SECRET is not set on this gateway; callbacks are refused.");
      }
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signature = request.headers["x-hub-signature-256"];
      if (!verifyMetaSignature(raw, typeof signature === "string" ? signature : undefined, appSecret)) {
        throw new GatewayError("unauthorized", "X-Hub-Signature-256 is missing or does not match the app secret.");
      }
      let parsed: ReturnType<typeof parseMetaWebhook>;
      try {
        parsed = parseMetaWebhook(JSON.parse(raw.toString("utf8")));
      } catch (error) {
        if (error instanceof MetaWebhookError) throw new GatewayError("invalid_request", error.message);
        if (error instanceof SyntaxError) {
          throw new GatewayError(
            "invalid_request",
            `Not a WhatsApp callback: the body is not JSON (${error.message}).`,
          );
        }
        throw error;
      }
      await ctx.whatsapp.events.apply(parsed);
      return reply.type("text/plain; charset=utf-8").send("EVENT_RECEIVED");
    });
  });
}
