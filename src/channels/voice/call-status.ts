// Call statuses from the provider (or the simulator) applied to the call's message: a final
// status moves the message through the shared transitions (completed → delivered; busy,
// no-answer, failed, canceled → failed, the call status as the error code), with its
// delivery_report webhook in the same transaction; every status is kept in the call's meta.
// A status can overtake the record of its own submit (the provider calls back before the
// dispatcher commits), so one that matches no call is retried for a minute, then logged.

import { OnDemandInterval } from "../../base/core/on-demand-interval.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Db, Store } from "../../base/store/store.js";
import {
  applyDeliveryReports,
  callMessages,
  type DeliveryReport,
  type ReportedRow,
  replaceMessageMeta,
} from "../../domain/messages/index.js";
import type { WebhookOutbox } from "../../domain/webhooks/outbox.js";
import { WEBHOOKS_QUEUED } from "../../domain/webhooks/outbox.js";
import { type CallStatus, isFinalCallStatus, withCallStatus } from "./call-meta.js";

export interface CallStatusUpdate {
  /** The connector that placed the call (the message's `connector`). */
  connector: string;
  /** The provider's call id (the message's `upstream_id`). */
  callSid: string;
  status: CallStatus;
  /** When the call reached the status (epoch ms). */
  at: number;
  durationSeconds?: number | undefined;
}

const FAILURES: Partial<Record<CallStatus, string>> = {
  busy: "The line was busy.",
  "no-answer": "The call was not answered.",
  failed: "The call could not be connected.",
  canceled: "The call was cancelled before it was answered.",
};

export function deliveryReportOf(update: CallStatusUpdate): DeliveryReport | undefined {
  if (!isFinalCallStatus(update.status)) return undefined;
  const base = { connector: update.connector, upstreamId: update.callSid, at: update.at };
  if (update.status === "completed") return { ...base, status: "delivered" };
  return {
    ...base,
    status: "failed",
    code: update.status,
    message: FAILURES[update.status] ?? `The call ended ${update.status}.`,
  };
}

/**
 * Inside one transaction: the final statuses through the message transitions, every status
 * into its call's meta. Answers the messages whose state changed and the updates recorded: each
 * update for itself, not its call, since one batch can hold a call's `in-progress` (recorded)
 * and its `completed` (to be applied again while the call still reads `submitted`).
 */
export async function applyCallStatuses(
  store: Store,
  trx: Db,
  updates: readonly CallStatusUpdate[],
): Promise<{ changed: ReportedRow[]; found: Set<CallStatusUpdate> }> {
  const reports = updates.flatMap((update) => deliveryReportOf(update) ?? []);
  const changed = reports.length > 0 ? await applyDeliveryReports(store, trx, reports) : [];
  const found = new Set<CallStatusUpdate>();
  for (const update of updates) if (await recordCallStatus(trx, update)) found.add(update);
  return { changed, found };
}

/**
 * Writes the status into the call's meta unless it knows a later one. False when no call has
 * this id, and for a final status whose call is still `submitted`: on PostgreSQL the submit's
 * commit can land between the report's UPDATE (which did not see the call yet) and this read
 * (which does), and the status must then be applied again, not taken as done. False too when
 * every attempt lost its compare-and-set to another callback: the status is not in the meta, so
 * it is applied again later (CallStatusIngester's retry), not counted as recorded.
 */
async function recordCallStatus(trx: Db, update: CallStatusUpdate): Promise<boolean> {
  // Compare-and-set on the old meta: on PostgreSQL a concurrent callback for the same call
  // makes the UPDATE match nothing, and the read is done again.
  for (let attempt = 0; attempt < 5; attempt++) {
    const rows = await callMessages(trx, update.connector, update.callSid);
    if (rows.length === 0) return false;
    let raced = false;
    for (const row of rows) {
      const next = withCallStatus(row.meta, update.status, update.durationSeconds);
      if (next === undefined) continue;
      if (!(await replaceMessageMeta(trx, row.id, row.meta, next))) raced = true;
    }
    if (!raced) return !(isFinalCallStatus(update.status) && rows.some((row) => row.status === "submitted"));
  }
  return false;
}

type Deps = Pick<Runtime, "store" | "clock" | "logger" | "metrics"> & { webhooks: WebhookOutbox };

const RETRY_EVERY_MS = 250;
/** Statuses held for a retry at most; beyond it the oldest are dropped (and logged). */
const MAX_WAITING = 10_000;

export class CallStatusIngester {
  private waiting: { update: CallStatusUpdate; firstSeen: number }[] = [];
  private retrying: Promise<void> | undefined;
  /** Tries the held statuses again every RETRY_EVERY_MS, only while some are held or a try is on. */
  private readonly retries = new OnDemandInterval(
    RETRY_EVERY_MS,
    () => {
      if (!this.retrying && this.waiting.length > 0) {
        this.retrying = this.retry().finally(() => {
          this.retrying = undefined;
          this.retries.disarmIfIdle();
        });
      }
    },
    () => this.waiting.length > 0 || this.retrying !== undefined,
  );

  constructor(
    private readonly deps: Deps,
    private readonly retryUnmatchedMs = 60_000,
  ) {}

  start(): void {
    this.retries.start();
  }

  async stop(): Promise<void> {
    this.retries.stop();
    await this.retrying;
  }

  /** Resolves once the statuses are stored, or held for a retry when their call is not known yet. */
  async apply(updates: readonly CallStatusUpdate[]): Promise<void> {
    const unmatched = await this.store(updates);
    const now = Date.now();
    for (const update of unmatched) this.waiting.push({ update, firstSeen: now });
    this.retries.arm();
    if (this.waiting.length > MAX_WAITING) {
      const dropped = this.waiting.splice(0, this.waiting.length - MAX_WAITING);
      this.deps.logger.warn(
        { dropped: dropped.length },
        "too many voice call statuses for unknown calls; oldest dropped",
      );
    }
  }

  /** Stores what it can; answers the updates whose call was not found. */
  private async store(updates: readonly CallStatusUpdate[]): Promise<CallStatusUpdate[]> {
    let events = 0;
    const { changed, found } = await this.deps.store.transaction(async (trx) => {
      const applied = await applyCallStatuses(this.deps.store, trx, updates);
      if (applied.changed.length > 0) {
        events = await this.deps.webhooks.deliveryReports(
          trx,
          applied.changed.map((row) => ({ ...row, at: row.done_at })),
          this.deps.clock.now().getTime(),
        );
      }
      return applied;
    });
    if (events > 0) await this.deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
    this.count(changed);
    return updates.filter((update) => !found.has(update));
  }

  private async retry(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    let unmatched: Set<CallStatusUpdate>;
    try {
      unmatched = new Set(await this.store(batch.map((w) => w.update)));
    } catch (error) {
      this.deps.logger.error({ err: error, statuses: batch.length }, "storing voice call statuses failed; retrying");
      this.waiting.push(...batch);
      return;
    }
    const now = Date.now();
    for (const waiting of batch) {
      if (!unmatched.has(waiting.update)) continue;
      if (now - waiting.firstSeen < this.retryUnmatchedMs) {
        this.waiting.push(waiting);
        continue;
      }
      const { connector, callSid, status } = waiting.update;
      this.deps.logger.warn(
        { connector, call_sid: callSid, call_status: status },
        "voice call status for a call the gateway does not know; dropped",
      );
    }
  }

  private count(changed: ReportedRow[]): void {
    const now = this.deps.clock.now().getTime();
    for (const row of changed) {
      if (row.status === "delivered") this.deps.metrics.messagesDelivered.inc({ channel: row.channel });
      else this.deps.metrics.messagesFailed.inc({ channel: row.channel, stage: "delivery" });
      this.deps.metrics.endToEndSeconds.observe({ channel: row.channel }, Math.max(0, now - row.created_at) / 1000);
    }
  }
}
