// Delivery reports from connectors, applied in groups (one transaction per tick). A report
// can overtake the record of its own submit (the carrier answers faster than we commit): one
// that no message carries the id of yet is stored (`early_reports`) in the transaction that
// found none, so it is kept before the carrier hears it was taken, and tried again from memory
// for a minute from the first time the database said so (the record usually lands within
// milliseconds). After that, or when the process that held it died, a sweep every few seconds
// in each process applies the stored ones whose message is now submitted; a stored report
// that no message carries after 48 hours is dropped.
import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import {
  applyDeliveryReports,
  type DeliveryReport,
  dropSpentEarlyReports,
  earlyReportsDue,
  forgetEarlyReports,
  hasEarlyReports,
  keepEarlyReports,
  reportsAhead,
} from "../messages/index.js";
import type { Metrics } from "../runtime/metrics.js";
import type { Store } from "../store/store.js";
import { WEBHOOKS_QUEUED, type WebhookOutbox, withHandoff } from "../webhooks/outbox.js";
import { REPORTED_CHANNELS } from "./submit-outcomes.js";

const RETRY_UNMATCHED_MS = 60_000;
/** How often each process looks for stored early reports whose message is now submitted. */
const SWEEP_MS = 5_000;
/** How long a stored early report waits for a message with its id: the longest validity of one. */
const KEEP_EARLY_MS = 48 * 3600_000;
/**
 * Reports applied per transaction. On SQLite the transaction runs on the thread that commits
 * accepted sends too, and holds it from start to end: 500 reports with their webhooks are a
 * few milliseconds, 2,000 were tens, which every send answered meanwhile waited for.
 */
const MAX_GROUP = 500;

interface Waiting {
  report: DeliveryReport;
  /** When the database first answered that no submitted message carries the report's id. */
  unmatchedSince?: number;
  /** Stored in `early_reports`: forgotten there once applied. */
  stored?: boolean;
  /** pushAndWait's promise: settled once the report's group is committed (or failed). */
  settle?: (error?: Error) => void;
}

export class ReportIngester {
  private queue: Waiting[] = [];
  private flushing = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private unmatched: Waiting[] = [];

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      logger: Logger;
      metrics: Metrics;
      webhooks?: WebhookOutbox;
      /** How long a report that matches no message is tried again from memory (default a minute). */
      retryUnmatchedMs?: number;
      /** How often stored early reports are looked at (default 5 s). */
      sweepMs?: number;
      /** How long a stored early report waits for its message (default 48 hours). */
      keepEarlyMs?: number;
    },
  ) {}

  push(reports: DeliveryReport[]): void {
    for (const report of reports) this.queue.push({ report });
    this.kick();
  }

  /**
   * Like push, resolving once the reports' transaction committed (a report that matched no
   * message yet is then stored, and kept for retries in memory); rejects when it failed. For callers that
   * acknowledge a carrier's callback only after the report is stored.
   */
  pushAndWait(reports: DeliveryReport[]): Promise<void> {
    const settled = reports.map(
      (report) =>
        new Promise<void>((resolve, reject) => {
          this.queue.push({ report, settle: (error) => (error ? reject(error) : resolve()) });
        }),
    );
    this.kick();
    return Promise.all(settled).then(() => undefined);
  }

  start(): void {
    this.retryTimer = setInterval(() => {
      if (this.unmatched.length === 0) return;
      this.queue.push(...this.unmatched);
      this.unmatched = [];
      this.kick();
    }, 250);
    this.retryTimer.unref();
    this.sweepTimer = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = this.sweep()
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, "looking at early delivery reports failed"))
        .finally(() => {
          this.sweeping = undefined;
        });
    }, this.deps.sweepMs ?? SWEEP_MS);
    this.sweepTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.retryTimer) clearInterval(this.retryTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.sweeping;
    await this.idle;
  }

  private kick(): void {
    if (this.flushing) return;
    this.flushing = true;
    this.idle = new Promise((resolve) => {
      this.markIdle = resolve;
    });
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, MAX_GROUP);
        try {
          let events = 0;
          // Reports this process's webhook sender has room for go to it straight after the commit.
          const { rows: changed, ahead } = await withHandoff(
            this.deps.store,
            this.deps.webhooks,
            async (trx, handoff) => {
              const reports = group.map((w) => w.report);
              const rows = await applyDeliveryReports(this.deps.store, trx, reports);
              // The delivery_report webhooks, in the same transaction as the states they report.
              if (this.deps.webhooks) {
                events = await this.deps.webhooks.deliveryReports(
                  trx,
                  rows.filter((row) => REPORTED_CHANNELS.has(row.channel)).map((row) => ({ ...row, at: row.done_at })),
                  this.deps.clock.now().getTime(),
                  handoff,
                );
              }
              // Reports that changed nothing: those still ahead of their message (none carries the id
              // yet, or its record has just committed) are kept, in this transaction, so that a
              // carrier hears they were taken only once they are stored.
              // (Each changes at most one message; duplicates in the group are applied once.)
              const allChanged = rows.length >= reports.length || rows.length >= new Set(reports.map(keyOf)).size;
              const ahead = allChanged ? [] : await reportsAhead(trx, reports);
              const stored = new Set(group.filter((w) => w.stored).map((w) => w.report));
              const fresh = ahead.filter((report) => !stored.has(report));
              if (fresh.length > 0) await keepEarlyReports(trx, fresh, this.deps.clock.now().getTime());
              // Kept ones that applied now (or met a message already past `submitted`) are done.
              const aheadKeys = new Set(ahead.map(keyOf));
              const done = group.filter((w) => w.stored && !aheadKeys.has(keyOf(w.report))).map((w) => w.report);
              if (done.length > 0) await forgetEarlyReports(trx, done);
              return { rows, ahead: new Set(ahead) };
            },
          );
          if (events > 0) await this.deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
          for (const waiting of group) waiting.settle?.();
          this.record(changed);
          this.keepUnmatched(group.filter((w) => ahead.has(w.report)));
        } catch (error) {
          this.deps.logger.error({ err: error, reports: group.length }, "applying delivery reports failed; retrying");
          for (const waiting of group) waiting.settle?.(error as Error);
          this.unmatched.push(...group.map(({ settle: _settled, ...waiting }) => waiting));
        }
      }
    } finally {
      this.flushing = false;
      this.markIdle();
    }
  }

  private record(changed: Awaited<ReturnType<typeof applyDeliveryReports>>): void {
    const now = this.deps.clock.now().getTime();
    for (const row of changed) {
      if (row.status === "delivered") this.deps.metrics.messagesDelivered.inc({ channel: row.channel });
      else this.deps.metrics.messagesFailed.inc({ channel: row.channel, stage: "delivery" });
      this.deps.metrics.endToEndSeconds.observe({ channel: row.channel }, Math.max(0, now - row.created_at) / 1000);
    }
  }

  /**
   * Reports still ahead of their message (stored as early reports): tried again here every
   * 250 ms for retryUnmatchedMs from the first time the database said so, since their submits'
   * records usually land within milliseconds; after that the sweep applies them once their
   * message is submitted, from whichever process finds it so.
   */
  private keepUnmatched(ahead: Waiting[]): void {
    const retryMs = this.deps.retryUnmatchedMs ?? RETRY_UNMATCHED_MS;
    const now = Date.now();
    for (const waiting of ahead) {
      waiting.stored = true;
      waiting.unmatchedSince ??= now;
      if (now - waiting.unmatchedSince < retryMs) this.unmatched.push(waiting);
    }
  }

  /**
   * Applies the kept reports whose message is now submitted (their submit recorded after this or
   * another process let go of them: it died, or the record came after retryUnmatchedMs), and
   * removes those that will never apply.
   */
  private async sweep(): Promise<void> {
    const { store, logger } = this.deps;
    if (!(await hasEarlyReports(store.db))) return;
    const due = await earlyReportsDue(store.db, MAX_GROUP);
    if (due.length > 0) {
      for (const report of due) this.queue.push({ report, stored: true });
      this.kick();
    }
    const keptBefore = this.deps.clock.now().getTime() - (this.deps.keepEarlyMs ?? KEEP_EARLY_MS);
    const expired = await dropSpentEarlyReports(store.db, keptBefore);
    if (expired > 0) logger.warn({ reports: expired }, "delivery reports that matched no message in 48 hours dropped");
  }
}

function keyOf(report: DeliveryReport): string {
  return `${report.connector}\u0000${report.upstreamId}`;
}
