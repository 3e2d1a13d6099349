// What every part of a running gateway receives: its dependencies, passed explicitly.
import type { Logger } from "pino";
import type { Authenticator } from "../auth/authenticator.js";
import type { RateLimits } from "../auth/rate-limits.js";
import type { Sessions } from "../auth/sessions.js";
import type { Clock } from "../core/clock.js";
import type { EmailTracker } from "../email/tracking.js";
import type { Acceptor } from "../messages/index.js";
import type { SmsPolicy } from "../sms/index.js";
import type { Store } from "../store/store.js";
import type { WebhookOutbox } from "../webhooks/outbox.js";
import type { WhatsApp } from "../whatsapp/index.js";
import type { Config } from "./config.js";
import type { Metrics } from "./metrics.js";

export interface AppContext {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  authenticator: Authenticator;
  /** Console sign-ins, accepted by the v2 and operator APIs in place of an API key. */
  sessions: Sessions;
  /** Requests per minute per API key (v2). */
  rateLimits: RateLimits;
  /** Durable acceptance of sends (group commit). */
  acceptor: Acceptor;
  /** The SMS rules, one instance so every family shares its per-account caches. */
  smsPolicy: SmsPolicy;
  /** Writes webhook events into the outbox, inside the transaction of the change they report. */
  webhooks: WebhookOutbox;
  /** WhatsApp sends, templates and Meta's events (the synchronous upstream lives in the API process). */
  whatsapp: WhatsApp;
  /** Signs and checks the email open pixels and click links. */
  emailTracker: EmailTracker;
}
