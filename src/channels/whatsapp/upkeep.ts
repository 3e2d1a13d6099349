// A WhatsApp send whose process died between holding the credit and hearing the upstream
// leaves a `sending` row past its lease. Upkeep fails it and releases the hold: the client
// never got an answer, so nothing is charged (if WhatsApp did deliver it, that one is on us).
// The simulator's messages a stopped process left `sent` get their statuses (lost-statuses.ts).
// Meta's statuses kept for a wamid no message carried yet apply once one does, or go after an
// hour (early-statuses.ts). All at the start and every few seconds after.
import type { Logger } from "pino";
import type { Clock } from "../../base/core/clock.js";
import type { Store } from "../../base/store/store.js";
import { releaseHold, uplineRefunds } from "../../domain/accounts/index.js";
import { failSendingMessage, forgetPendingKey, staleWhatsAppSends } from "../../domain/messages/index.js";
import { LostSimulatedStatuses } from "./lost-statuses.js";
import type { WhatsApp } from "./whatsapp.js";

const BATCH = 500;

export async function releaseStaleSends(store: Store, clock: Clock): Promise<number> {
  const now = clock.now().getTime();
  const stale = await staleWhatsAppSends(store.db, now, BATCH);
  let released = 0;
  for (const row of stale) {
    await store.transaction(async (trx) => {
      const failed = await failSendingMessage(store, trx, row.id, {
        code: "upstream_unknown",
        message: "The gateway stopped before WhatsApp answered; the message was not charged.",
        at: now,
      });
      if (!failed) return;
      await releaseHold(trx, { accountId: row.account_id, wallet: "whatsapp", amount: row.credits });
      for (const level of uplineRefunds(row.upline, { wallet: "whatsapp", ref: row.id })) await releaseHold(trx, level);
      const key = (JSON.parse(row.meta ?? "{}") as { idempotency_key?: string }).idempotency_key;
      if (key) await forgetPendingKey(trx, row.account_id, key);
      released++;
    });
  }
  return released;
}

export function startWhatsAppUpkeep(
  deps: { store: Store; clock: Clock; logger: Logger; whatsapp: Pick<WhatsApp, "events" | "deps"> },
  intervalMs = 5_000,
) {
  const lost = new LostSimulatedStatuses({
    store: deps.store,
    clock: deps.clock,
    events: deps.whatsapp.events,
    latencyMs: deps.whatsapp.deps.config.simulatorLatencyMs,
  });
  const runOnce = async () => {
    const released = await releaseStaleSends(deps.store, deps.clock);
    if (released > 0) deps.logger.warn({ count: released }, "released WhatsApp sends whose process stopped mid-call");
    const found = await lost.runOnce();
    if (found > 0) deps.logger.warn({ count: found }, "reported simulated WhatsApp statuses a stopped process left");
    await deps.whatsapp.events.applyKept();
    await deps.whatsapp.events.dropExpired();
  };
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= runOnce()
      .catch((error: unknown) => deps.logger.error({ err: error }, "WhatsApp upkeep failed"))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref?.();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
