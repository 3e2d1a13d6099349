// The email family (issue 8): /httpemailapi/v1/send and its aliases, sending domains with DKIM,
// stored templates, the smtp and simulator connectors, tracking and notifications.

import type { FastifyInstance } from "fastify";
import type { Authenticator } from "../auth/index.js";
import type { Connector } from "../dispatch/index.js";
import type { Acceptor } from "../messages/index.js";
import type { Runtime } from "../runtime/runtime.js";
import type { WebhookOutbox } from "../webhooks/outbox.js";
import { type BounceListener, startBounceListener } from "./bounce-listener.js";
import { EmailContentCache } from "./content.js";
import { applyReturnedBounce } from "./events.js";
import { registerEmailFamilyRoutes } from "./routes.js";
import { EmailSimulator } from "./simulator.js";
import { SmtpConnector } from "./smtp-connector.js";
import type { EmailTracker } from "./tracking.js";

export { registerEmailAdminRoutes, registerV2EmailRoutes } from "./resource-routes.js";
export { EmailTracker, trackingSecret } from "./tracking.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock" | "logger"> & {
  acceptor: Acceptor;
  authenticator: Authenticator;
  emailTracker: EmailTracker;
  webhooks: WebhookOutbox;
};

/** The email channel's connector (the relay in SMTP_URL, or the simulator's captured inbox), for the worker role. */
export function emailConnectors(ctx: Deps): Connector[] {
  const { email } = ctx.config;
  const common = {
    contents: new EmailContentCache(ctx.store.db),
    bounceDomain: email.bounceDomain,
    tracker: ctx.emailTracker,
    logger: ctx.logger,
    now: () => ctx.clock.now().getTime(),
  };
  if (email.connector === "smtp" && email.smtpUrl) {
    return [
      new SmtpConnector({
        ...common,
        url: email.smtpUrl,
        poolSize: email.smtpPoolSize,
        timeoutMs: email.smtpTimeoutMs,
        tlsRejectUnauthorized: email.smtpTlsRejectUnauthorized,
      }),
    ];
  }
  return [new EmailSimulator({ ...common, db: ctx.store.db })];
}

/** The SMTP listener for bounces (EMAIL_BOUNCE_PORT), in the worker role; undefined when off. */
export async function startEmailBounces(ctx: Deps): Promise<BounceListener | undefined> {
  if (ctx.config.email.bouncePort === 0) return undefined;
  return startBounceListener({
    port: ctx.config.email.bouncePort,
    host: ctx.config.host,
    bounceDomain: ctx.config.email.bounceDomain,
    logger: ctx.logger,
    onBounce: async (bounce) => {
      await applyReturnedBounce(ctx, { messageId: bounce.messageId, diagnostic: bounce.diagnostic });
    },
  });
}

/** Mounts the email family's paths and the tracking endpoints. */
export async function registerEmailRoutes(app: FastifyInstance, ctx: Deps): Promise<void> {
  await registerEmailFamilyRoutes(app, ctx);
}
