// The background parts of the `worker` role: connectors, the bulk expander, the dispatcher,
// the webhook sender, delivery-report and inbound-SMS ingestion, queue housekeeping and the alert
// checks. Each
// stops after finishing the work in hand.

import type { Db } from "../base/store/store.js";
import { startChainPasses } from "../channels/chains/index.js";
import { emailConnectors, operatorMailer, removeRetiredEmailData, startEmailBounces } from "../channels/email/index.js";
import { InboundIngester, SuppressionList } from "../channels/inbound/index.js";
import { codeRevealer } from "../channels/verify/index.js";
import { voiceConnectors } from "../channels/voice/index.js";
import { startWhatsAppUpkeep } from "../channels/whatsapp/index.js";
import { startAlertChecks } from "../delivery/alerts/index.js";
import { reportReasonOptions } from "../delivery/carriers/error-code-book.js";
import { CarrierRegistry } from "../delivery/carriers/registry.js";
import { removePartsOf } from "../delivery/carriers/smpp/index.js";
import {
  BulkExpander,
  DEFAULT_DISPATCHER_OPTIONS,
  Dispatcher,
  HeldAccounts,
  type Housekeeping,
  type InboundSms,
  promotionalRelease,
  ReportIngester,
  SimulatorConnector,
  startHousekeeping,
} from "../delivery/dispatch/index.js";
import { type DeliveryReport, unusedContents } from "../domain/messages/index.js";
import { DEFAULT_SENDER_OPTIONS, WebhookSender } from "../domain/webhooks/sender.js";
import type { AppContext } from "./context.js";

export type StopFn = () => Promise<void>;

const VERIFY_EXPIRY_MS = 5_000;

export interface Workers {
  dispatcher: Dispatcher;
  simulator: SimulatorConnector;
  /** The configured carriers (SMPP, HTTP aggregators), their router and health. */
  carriers: CarrierRegistry;
  /** Its timer's rounds (tests wait for one to have looked at the clock they set). */
  housekeeping: Housekeeping;
  /** The accounts whose messages are held (tests wait for it to have read a block). */
  heldAccounts: HeldAccounts;
  stop: StopFn;
}

/** What the carriers and email keep of the messages retention removes, removed with them. */
async function retiredMessageData(trx: Db, messageIds: string[], contentIds: number[]): Promise<void> {
  await removePartsOf(trx, messageIds);
  await removeRetiredEmailData(trx, messageIds, await unusedContents(trx, contentIds));
}

export async function startWorkers(ctx: AppContext): Promise<Workers> {
  const { config } = ctx;
  const simulator = new SimulatorConnector({
    seed: config.simulatorSeed,
    latencyMs: config.simulatorLatencyMs,
    failureRate: config.simulatorFailureRate,
    captureFile: config.simulatorCaptureFile,
    now: () => ctx.clock.now().getTime(),
  });
  const connectors = [simulator, ...voiceConnectors(ctx), ...emailConnectors(ctx)];
  const reasonOptions = reportReasonOptions(ctx);
  const reports = new ReportIngester({
    ...ctx,
    maxEarlyPerConnector: config.earlyReportsMaxPerConnector,
    ...reasonOptions,
  });
  const inbound = new InboundIngester(ctx);
  const sinks = {
    reports: (batch: DeliveryReport[]) => reports.push(batch),
    inbound: (batch: InboundSms[]) => inbound.push(batch),
  };
  for (const connector of connectors) {
    connector.onReports(sinks.reports);
    connector.onInbound?.(sinks.inbound);
    await connector.start?.();
  }
  reports.start();
  const carriers = new CarrierRegistry(ctx, connectors, sinks);
  await carriers.start();

  // The accounts that are not active (or below one): their messages held, their bulk parts
  // unexpanded, until they are active again (decision 0155).
  const heldAccounts = new HeldAccounts(ctx);
  await heldAccounts.start();
  const suppressions = new SuppressionList(ctx.store);
  const dispatcher = new Dispatcher(ctx, carriers, {
    ...DEFAULT_DISPATCHER_OPTIONS,
    heldAccounts,
    holdForMs: ctx.config.messageValidityHours * 3_600_000,
    revealBodies: codeRevealer(ctx.store, ctx.codeKeeper),
    reasons: reasonOptions.reasons,
    // Promotional SMS released late: the promotional hours, DND and opt-outs checked again.
    promotionalRelease: promotionalRelease(ctx.store.db, {
      hours: config.promoHours,
      timeZone: config.promoHoursTimeZone,
      optedOut: (accountId, numbers) => suppressions.among(accountId, numbers),
    }),
  });
  dispatcher.start();
  const expander = new BulkExpander({ ...ctx, heldAccounts });
  expander.start();
  const housekeeping = startHousekeeping(ctx, dispatcher, simulator, carriers, 1_000, retiredMessageData);
  const webhooks = new WebhookSender(ctx, {
    ...DEFAULT_SENDER_OPTIONS,
    allowPrivate: ctx.config.allowPrivateWebhooks,
  });
  webhooks.start();
  ctx.webhooks.attachSender(webhooks);
  const whatsappUpkeep = startWhatsAppUpkeep(ctx);
  // Fallback chains: later steps sent when their condition is met, deadlines from stored due times.
  const chainPasses = startChainPasses(ctx.chains, ctx.logger, config.chains.pollMs, ctx.clock);
  const bounces = await startEmailBounces(ctx);
  const mailer = operatorMailer(ctx.config);
  const alerts = startAlertChecks(ctx, mailer?.send, config.alertCheckSeconds * 1000);
  // Verifications nobody checked end at their expiry (their verification_expired event with it);
  // a read or check of one ends it at once too. The pumping guard's alerts whose block is over
  // are cleared in the same pass.
  let expiring: Promise<unknown> = Promise.resolve();
  const verifyExpiry = setInterval(() => {
    expiring = ctx.verifier
      .expire()
      .then(() => ctx.verifier.clearEndedAlerts())
      .catch((error: unknown) => ctx.logger.warn({ err: error }, "verification upkeep failed"));
  }, VERIFY_EXPIRY_MS);
  verifyExpiry.unref();

  return {
    dispatcher,
    simulator,
    carriers,
    housekeeping,
    heldAccounts,
    async stop() {
      await housekeeping.stop();
      await alerts.stop();
      clearInterval(verifyExpiry);
      await expiring;
      mailer?.close();
      await whatsappUpkeep.stop();
      await chainPasses.stop();
      await bounces?.close();
      ctx.webhooks.detachSender();
      await webhooks.stop();
      await expander.stop();
      await dispatcher.stop();
      await heldAccounts.stop();
      await carriers.stop();
      for (const connector of connectors) await connector.stop?.();
      await reports.stop();
      await inbound.stop();
    },
  };
}
