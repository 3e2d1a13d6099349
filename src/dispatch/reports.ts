// Delivery reports from connectors, applied in groups (one transaction per tick). A report
// can overtake the record of its own submit (the carrier answers faster than we commit), so
// a report that matches no submitted message is retried for a while before it is dropped: for
// a minute from the first time the database said so, not from its arrival, so that reports
// that came while the database was away (and the submits' records with them) are not dropped
// the moment it is back.
import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import { applyDeliveryReports, type DeliveryReport, statusesByUpstreamId } from "../messages/index.js";
import type { Metrics } from "../runtime/metrics.js";
import type { Store } from "../store/store.js";
import { WEBHOOKS_QUEUED, type WebhookOutbox, withHandoff } from "../webhooks/outbox.js";
import { REPORTED_CHANNELS } from "./dispatcher.js";

const RETRY_UNMATCHED_MS = 60_000;
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
  /** pushAndWait's promise: settled once the report's group is committed (or failed). */
  settle?: (error?: Error) => void;
}

export class ReportIngester {
  private queue: Waiting[] = [];
  private flushing = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private unmatched: Waiting[] = [];

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      logger: Logger;
      metrics: Metrics;
      webhooks?: WebhookOutbox;
      /** How long a report that matches no message is tried again (default a minute). */
      retryUnmatchedMs?: number;
    },
  ) {}

  push(reports: DeliveryReport[]): void {
    for (const report of reports) this.queue.push({ report });
    this.kick();
  }

  /**
   * Like push, resolving once the reports' transaction committed (a report that matched no
   * message yet is then kept for retries in memory); rejects when it failed. For callers that
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
  }

  async stop(): Promise<void> {
    if (this.retryTimer) clearInterval(this.retryTimer);
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
          const changed = await withHandoff(this.deps.store, this.deps.webhooks, async (trx, handoff) => {
            const rows = await applyDeliveryReports(
              this.deps.store,
              trx,
              group.map((w) => w.report),
            );
            // The delivery_report webhooks, in the same transaction as the states they report.
            if (this.deps.webhooks) {
              events = await this.deps.webhooks.deliveryReports(
                trx,
                rows.filter((row) => REPORTED_CHANNELS.has(row.channel)).map((row) => ({ ...row, at: row.done_at })),
                this.deps.clock.now().getTime(),
                handoff,
              );
            }
            return rows;
          });
          if (events > 0) await this.deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
          for (const waiting of group) waiting.settle?.();
          this.record(changed);
          this.keepUnmatched(group, changed.length);
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
   * Reports that changed nothing: when the message with the upstream id is past `submitted`,
   * the report is a duplicate or arrived after a final state, and is dropped; when none carries
   * the id yet, or the message is still awaiting its report (its submit committed between the
   * UPDATE and this look: connectors that report at once hit this), it is retried for
   * retryUnmatchedMs from the first such answer.
   */
  private keepUnmatched(group: Waiting[], changedCount: number): void {
    if (changedCount === group.length) return;
    const retryMs = this.deps.retryUnmatchedMs ?? RETRY_UNMATCHED_MS;
    void this.findUnmatched(group).then(
      (left) => {
        const now = Date.now();
        for (const waiting of left) {
          waiting.unmatchedSince ??= now;
          if (now - waiting.unmatchedSince < retryMs) this.unmatched.push(waiting);
          else this.deps.logger.warn({ report: waiting.report }, "delivery report matches no message; dropped");
        }
      },
      (error: unknown) => {
        // The database away (the look-up failed): every report of the group is tried again, as
        // one that matched nothing, its wait not counted; a report applied already changes
        // nothing the second time. Unhandled, this rejection ended the process.
        this.deps.logger.warn({ err: error, reports: group.length }, "looking up unmatched delivery reports failed");
        this.unmatched.push(...group);
      },
    );
  }

  private async findUnmatched(group: Waiting[]): Promise<Waiting[]> {
    const byConnector = new Map<string, Waiting[]>();
    for (const waiting of group) {
      const list = byConnector.get(waiting.report.connector) ?? [];
      list.push(waiting);
      byConnector.set(waiting.report.connector, list);
    }
    const left: Waiting[] = [];
    for (const [connector, list] of byConnector) {
      const known = await statusesByUpstreamId(
        this.deps.store.db,
        connector,
        list.map((w) => w.report.upstreamId),
      );
      const settled = new Set(known.filter((k) => k.status !== "submitted").map((k) => k.upstream_id));
      for (const waiting of list) if (!settled.has(waiting.report.upstreamId)) left.push(waiting);
    }
    return left;
  }
}
