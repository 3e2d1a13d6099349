// What a gateway thread is made of: its AppContext and Acceptor. Shared by the main thread
// (gateway.ts) and the worker thread (worker-thread.ts), which does not load the HTTP server.
import type { Logger } from "pino";
import { accountCredentials } from "../accounts/index.js";
import { Authenticator, type connectRateLimitRedis, RateLimits, Sessions } from "../auth/index.js";
import type { Clock } from "../core/clock.js";
import { BULK_PARTS_SIGNAL, QUEUED_SIGNAL } from "../dispatch/index.js";
import { EMAIL_CONTENT, EmailTracker, emailNotifyTargets, trackingSecret, writeEmailContent } from "../email/index.js";
import { Acceptor, requeueAllDispatching } from "../messages/index.js";
import type { Config } from "../runtime/config.js";
import type { Metrics } from "../runtime/metrics.js";
import { SmppOutbox } from "../smpp-server/index.js";
import { SmsPolicy } from "../sms/index.js";
import type { Store } from "../store/store.js";
import { WebhookOutbox } from "../webhooks/outbox.js";
import { WhatsApp } from "../whatsapp/index.js";
import type { AppContext } from "./context.js";

/** The Acceptor of a process or thread, feeding its metrics and waking the dispatcher (and the bulk expander for new parts). */
export function createAcceptor(store: Store, clock: Clock, metrics: Metrics, logger: Logger): Acceptor {
  return new Acceptor(store, clock, {
    // Content a send's messages share, written by the folder that owns its tables.
    sharedWriters: { [EMAIL_CONTENT]: writeEmailContent },
    committed: (accepted, groupSize) => {
      metrics.acceptBatchSize.observe(groupSize);
      let count = 0;
      let bulkParts = false;
      for (const item of accepted) {
        count += item.count;
        bulkParts ||= item.bulkPart;
        metrics.messagesAccepted.inc({ channel: item.channel }, item.count);
        metrics.acceptSeconds.observe({ channel: item.channel }, item.waitedMs / 1000);
      }
      const wake = (channel: string) =>
        store.signals.notify(channel).catch((error: unknown) => logger.warn({ err: error }, "wake-up signal failed"));
      if (count > 0) void wake(QUEUED_SIGNAL);
      if (bulkParts) void wake(BULK_PARTS_SIGNAL);
    },
  });
}

export async function createContext(parts: {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  acceptor: AppContext["acceptor"];
  redis: Awaited<ReturnType<typeof connectRateLimitRedis>> | undefined;
  rateLimitKeyPrefix?: string | undefined;
}): Promise<AppContext> {
  const { config, store, clock, logger, metrics, acceptor, redis, rateLimitKeyPrefix } = parts;
  const rateLimits = new RateLimits({
    logger,
    ...(redis ? { redis } : {}),
    ...(rateLimitKeyPrefix ? { keyPrefix: rateLimitKeyPrefix } : {}),
  });
  const webhooks = new WebhookOutbox(store, emailNotifyTargets);
  // Receipts and MO owed to SMPP clients are written with the webhook rows (by whichever role changes the message).
  webhooks.sinks.push(new SmppOutbox(store));
  const emailTracker = new EmailTracker(
    await trackingSecret(store),
    config.email.trackingUrl ?? `http://localhost:${config.port}`,
  );
  return {
    config,
    store,
    clock,
    logger,
    metrics,
    // auth/ reads the accounts' rows through accounts/, which sits above it.
    authenticator: new Authenticator(store, accountCredentials, clock, config, {
      logger,
      checksCounter: metrics.passwordChecks,
    }),
    sessions: new Sessions(store, accountCredentials, clock, config),
    smsPolicy: new SmsPolicy(store, clock),
    webhooks,
    whatsapp: new WhatsApp({ store, clock, logger, metrics, webhooks, config: config.whatsapp }),
    emailTracker,
    rateLimits,
    acceptor,
  };
}

export async function releaseAllLeases(store: Store): Promise<void> {
  await requeueAllDispatching(store.db);
}
