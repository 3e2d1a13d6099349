// Gauges of what waits: messages queued for dispatch (per channel and lane; those held for want of
// a connector, per channel) and webhook deliveries not yet delivered, read from the database when
// /metrics is scraped, so every process (an `api` alone too) reports them. Each read is bounded:
// the partial indexes of the live states are walked for at most BACKLOG_CAP rows, never the whole
// table, and scrapes within SNAPSHOT_TTL_MS of each other share one read.

import type { Logger } from "pino";
import { Gauge, type Registry } from "prom-client";
import type { Clock } from "../base/core/clock.js";
import type { Store } from "../base/store/store.js";
import { queuedBacklog } from "../domain/messages/index.js";
import { deliveryBacklog } from "../domain/webhooks/sender-queries.js";

/** Rows counted at most per read: a gauge at this value means at least this many wait. */
export const BACKLOG_CAP = 100_000;
const SNAPSHOT_TTL_MS = 1_000;

export interface Backlog {
  /** `held`: of `n`, those held because no connector of their route is up (connectors_down). */
  queued: { channel: string; lane: number; n: number; held: number }[];
  webhooksPending: number;
  /** How long the most overdue pending delivery has been due (ms), 0 when none is. */
  webhooksOverdueMs: number;
}

export async function readBacklog(store: Store, now: number): Promise<Backlog> {
  const queued = await queuedBacklog(store.db, BACKLOG_CAP);
  const webhooks = await deliveryBacklog(store.db, BACKLOG_CAP, now);
  return { queued, webhooksPending: webhooks.pending, webhooksOverdueMs: webhooks.overdueMs };
}

/** Registers the backlog gauges on `registry`; their values are read at scrape time. */
export function registerBacklogGauges(registry: Registry, deps: { store: Store; clock: Clock; logger: Logger }): void {
  let snapshot: { at: number; value: Promise<Backlog | undefined> } | undefined;
  const current = (): Promise<Backlog | undefined> => {
    const at = Date.now();
    if (snapshot && at - snapshot.at < SNAPSHOT_TTL_MS) return snapshot.value;
    const value = readBacklog(deps.store, deps.clock.now().getTime()).catch((error: unknown) => {
      deps.logger.warn({ err: error }, "reading the backlog gauges failed");
      return undefined;
    });
    snapshot = { at, value };
    return value;
  };
  const registers = [registry];

  new Gauge({
    name: "switchboard_queue_depth",
    help: `Messages queued for dispatch, by channel and lane (counted up to ${BACKLOG_CAP})`,
    labelNames: ["channel", "lane"],
    registers,
    async collect() {
      const backlog = await current();
      if (!backlog) return;
      this.reset();
      for (const row of backlog.queued) this.set({ channel: row.channel, lane: String(row.lane) }, row.n);
    },
  });
  new Gauge({
    name: "switchboard_messages_held",
    help: `Queued messages held because no connector of their route is up (connectors_down), by channel (counted among the first ${BACKLOG_CAP} queued)`,
    labelNames: ["channel"],
    registers,
    async collect() {
      const backlog = await current();
      if (!backlog) return;
      this.reset();
      const held = new Map<string, number>();
      for (const row of backlog.queued) held.set(row.channel, (held.get(row.channel) ?? 0) + row.held);
      for (const [channel, n] of held) this.set({ channel }, n);
    },
  });
  new Gauge({
    name: "switchboard_webhook_deliveries_pending",
    help: `Webhook deliveries waiting for their next attempt (counted up to ${BACKLOG_CAP})`,
    registers,
    async collect() {
      const backlog = await current();
      if (backlog) this.set(backlog.webhooksPending);
    },
  });
  new Gauge({
    name: "switchboard_webhook_overdue_seconds",
    help: "How long the most overdue pending webhook delivery has been due (0: the sender keeps up)",
    registers,
    async collect() {
      const backlog = await current();
      if (backlog) this.set(backlog.webhooksOverdueMs / 1000);
    },
  });
}
