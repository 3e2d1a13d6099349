// Messages whose delivery report never came: once a message has waited MESSAGE_VALIDITY_HOURS
// since its submit, it fails with error code `expired` and its delivery_report webhook goes out
// in the same transaction. Not refunded: the carrier took it. Connectors that never report
// delivery are left alone (their messages stay `submitted`), and so is WhatsApp, whose own
// statuses are not on this state machine.

import type { Runtime } from "../../base/runtime/runtime.js";
import { connectorsAwaitingReports, expireUnreported } from "../../domain/messages/index.js";
import type { WebhookOutbox } from "../../domain/webhooks/outbox.js";
import { WEBHOOKS_QUEUED } from "../../domain/webhooks/outbox.js";
import { REPORTED_CHANNELS } from "./submit-outcomes.js";

type Deps = Pick<Runtime, "config" | "store" | "clock" | "logger" | "metrics"> & { webhooks?: WebhookOutbox };

const BATCH = 1_000;
/** At most this many per call; the rest wait for the next round. */
const MAX_PER_CALL = 10_000;

/** Expires what is due, connector by connector; answers how many messages it failed. */
export async function expireUnreportedMessages(
  deps: Deps,
  reportsDelivery: (connector: string) => boolean,
): Promise<number> {
  const now = deps.clock.now().getTime();
  const hours = deps.config.messageValidityHours;
  const expiry = {
    submittedBefore: now - hours * 3_600_000,
    now,
    message: `No delivery report came within ${hours} h of the submit to the carrier (MESSAGE_VALIDITY_HOURS); the carrier may still have delivered it.`,
    limit: BATCH,
  };
  let total = 0;
  for (const connector of await connectorsAwaitingReports(deps.store.db, expiry.submittedBefore)) {
    if (!reportsDelivery(connector)) continue;
    for (let full = true; full && total < MAX_PER_CALL; ) {
      let events = 0;
      const expired = await deps.store.transaction(async (trx) => {
        const rows = await expireUnreported(deps.store, trx, { ...expiry, connector });
        if (deps.webhooks && rows.length > 0) {
          const reported = rows.filter((row) => REPORTED_CHANNELS.has(row.channel));
          events = await deps.webhooks.deliveryReports(
            trx,
            reported.map((row) => ({ ...row, at: row.done_at })),
            now,
          );
        }
        return rows;
      });
      if (events > 0) await deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
      for (const row of expired) deps.metrics.messagesFailed.inc({ channel: row.channel, stage: "expired" });
      total += expired.length;
      full = expired.length === BATCH;
    }
  }
  if (total > 0) {
    deps.logger.warn({ expired: total, hours }, "messages without a delivery report failed as expired");
  }
  return total;
}
