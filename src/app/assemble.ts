// What a gateway thread is made of: its AppContext and Acceptor. Shared by the main thread
// (gateway.ts) and the worker thread (worker-thread.ts), which does not load the HTTP server.
import type { Logger } from "pino";
import type { Clock } from "../base/core/clock.js";
import type { Config } from "../base/runtime/config.js";
import type { Metrics } from "../base/runtime/metrics.js";
import type { Store } from "../base/store/store.js";
import { Chains } from "../channels/chains/index.js";
import {
  EMAIL_CONTENT,
  EmailTracker,
  emailNotifyTargets,
  trackingSecret,
  writeEmailContent,
} from "../channels/email/index.js";
import { SmppOutbox } from "../channels/smpp-server/index.js";
import { MAX_SEGMENTS, SmsPolicy } from "../channels/sms/index.js";
import { CodeKeeper, Verifier, verifySecret } from "../channels/verify/index.js";
import { VoicePolicy } from "../channels/voice/index.js";
import { WhatsApp } from "../channels/whatsapp/index.js";
import { BULK_PARTS_SIGNAL, QUEUED_SIGNAL } from "../delivery/dispatch/index.js";
import { accountCredentials, PriceBook } from "../domain/accounts/index.js";
import { Authenticator, type connectRateLimitRedis, RateLimits, Sessions } from "../domain/auth/index.js";
import { Acceptor, requeueAllDispatching } from "../domain/messages/index.js";
import { insertRefusals, RefusalLog, type RefusalWriter } from "../domain/refusals/index.js";
import { WebhookOutbox } from "../domain/webhooks/outbox.js";
import type { AppContext } from "./context.js";
import { recordServedSettings } from "./served-settings.js";

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
  /** Where the log of refusals writes its batches (default: this store; in `start` on SQLite, the worker thread). */
  refusalWriter?: RefusalWriter | undefined;
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
  const prices = new PriceBook(store);
  // The DLT settings sends are judged by, for the CLI's account views (decision 0169).
  await recordServedSettings(store.db, config.dlt, clock.now()).catch((error: unknown) =>
    logger.warn({ err: error }, "could not record the DLT settings for the CLI"),
  );
  const smsPolicy = new SmsPolicy(
    store,
    clock,
    prices,
    {
      hours: config.promoHours,
      timeZone: config.promoHoursTimeZone,
      chainRequired: config.dlt.chainRequired,
      tmId: config.dlt.tmId,
      templatesAllRoutes: config.dlt.templatesAllRoutes,
    },
    { base: config.shortLinkBase, days: config.shortLinkDays, maxSegments: MAX_SEGMENTS },
  );
  const voicePolicy = new VoicePolicy(store, clock, config.voice, prices);
  const codeKeeper = new CodeKeeper(await verifySecret(store));
  const whatsapp = new WhatsApp({
    store,
    clock,
    logger,
    metrics,
    webhooks,
    config: config.whatsapp,
    prices,
    captureFile: config.simulatorCaptureFile,
  });
  const verifier = new Verifier({
    store,
    clock,
    config,
    logger,
    metrics,
    smsPolicy,
    voicePolicy,
    acceptor,
    webhooks,
    keeper: codeKeeper,
    whatsapp: whatsapp.sends,
    prices,
  });
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
    prices,
    smsPolicy,
    verifier,
    codeKeeper,
    webhooks,
    whatsapp,
    chains: new Chains({
      store,
      clock,
      acceptor,
      smsPolicy,
      voicePolicy,
      whatsapp,
      prices,
      webhooks,
      allowPrivateWebhooks: config.allowPrivateWebhooks,
      metrics,
      retentionDays: config.messageRetentionDays,
    }),
    emailTracker,
    rateLimits,
    acceptor,
    refusals: new RefusalLog(
      { clock, metrics, logger, config },
      parts.refusalWriter ?? ((rows) => insertRefusals(store, rows)),
    ),
  };
}

export async function releaseAllLeases(store: Store): Promise<void> {
  await requeueAllDispatching(store.db);
}
