// Delivery reports from connectors, applied in groups (one transaction per tick). A report
// can overtake the record of its own submit (the carrier answers faster than we commit): one
// that no message carries the id of yet is stored (`early_reports`, messages/early-reports.ts)
// in the transaction that found none, so it is kept before the carrier hears it was taken, and
// tried again from memory for a minute from the first time the database said so, at growing
// intervals (the record usually lands within milliseconds; a flood of reports for ids no message
// will ever carry must not keep the database busy). After that, or when the process that held
// it died, a sweep every few seconds in each process applies the stored ones whose message is
// now submitted; a stored report that no message carries after 48 hours is dropped. Of two
// reports of one id (DELIVERED then FAILED), the first the gateway took applies: the stored one,
// which is the first of its id, goes before any other of it, from memory or fresh, in whichever
// process applies it (reports kept in memory retry on their own clocks). A group
// whose transaction fails while the database answers holds a report the database refuses: it is
// split until that report is alone, so that it fails no other.
import { sql } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { shownEndAt } from "../../base/core/message-status.js";
import { RepeatedErrors } from "../../base/core/repeated-errors.js";
import type { Metrics } from "../../base/runtime/metrics.js";
import type { Store } from "../../base/store/store.js";
import {
  applyDeliveryReports,
  type DeliveryReport,
  dropSpentEarlyReports,
  earlyReportsDue,
  firstReportsFirst,
  forgetEarlyReports,
  hasEarlyReports,
  keepEarlyReports,
  keptReportsOf,
  REPORT_CODE_MAX_LENGTH,
  refundCarrierFailures,
  reportsAhead,
  UPSTREAM_ID_MAX_LENGTH,
} from "../../domain/messages/index.js";
import { WEBHOOKS_QUEUED, type WebhookOutbox, withHandoff } from "../../domain/webhooks/outbox.js";
import { type CarrierReasons, classifyReports } from "./carrier-reasons.js";
import { REPORTED_CHANNELS } from "./submit-outcomes.js";

const RETRY_UNMATCHED_MS = 60_000;
/** The first retry from memory of a report no message carries yet; each next one waits twice as long. */
const RETRY_FIRST_MS = 250;
/** Reports retried from memory at once; past it, a stored report waits for the sweep. */
const MAX_RETRIED_IN_MEMORY = 1_000;
/** Retries from memory of a report the database refused while it answered others, before it is dropped. */
const MAX_REFUSED_RETRIES = 5;
/** How often each process looks for stored early reports whose message is now submitted. */
const SWEEP_MS = 5_000;
/** How long a stored early report waits for a message with its id: the longest validity of one. */
const KEEP_EARLY_MS = 48 * 3600_000;
/** Early reports kept per connector unless EARLY_REPORTS_MAX_PER_CONNECTOR says otherwise. */
const MAX_EARLY_PER_CONNECTOR = 10_000;
/**
 * Reports applied per transaction. On SQLite the transaction runs on the thread that commits
 * accepted sends too, and holds it from start to end: 500 reports with their webhooks are a
 * few milliseconds, 2,000 were tens, which every send answered meanwhile waited for.
 */
const MAX_GROUP = 500;

interface Waiting {
  report: DeliveryReport;
  /** When this process took the report. */
  receivedAt: number;
  /** When the database first answered that no submitted message carries the report's id. */
  unmatchedSince?: number;
  /** Retries from memory so far, and when the next is due. */
  retries: number;
  retryAt: number;
  /** Stored in `early_reports`: forgotten there once applied. */
  stored?: boolean;
  /** pushAndWait's promise: settled once the report's group is committed (or failed). */
  settle?: (error?: Error) => void;
}

/** Why a report is refused before it reaches the database: a value longer than anything a carrier sends. */
function oversized(report: DeliveryReport): string | undefined {
  if (report.upstreamId.length > UPSTREAM_ID_MAX_LENGTH) {
    return `a carrier message id is longer than ${UPSTREAM_ID_MAX_LENGTH} characters`;
  }
  if ((report.code?.length ?? 0) > REPORT_CODE_MAX_LENGTH) {
    return `a failure code is longer than ${REPORT_CODE_MAX_LENGTH} characters`;
  }
  return undefined;
}

export class ReportIngester {
  private queue: Waiting[] = [];
  /** Halves of groups that failed while the database answered, applied before the queue. */
  private isolating: Waiting[][] = [];
  private flushing = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private unmatched: Waiting[] = [];
  /** The database away fails every group the same way: one line with the stack, then counts. */
  private failures: RepeatedErrors | undefined;

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
      /** Stored early reports per connector, the oldest dropped past it (EARLY_REPORTS_MAX_PER_CONNECTOR). */
      maxEarlyPerConnector?: number;
      /** The connectors' error_codes tables: a failed report's carrier code mapped to its reason. */
      reasons?: CarrierReasons;
      /** The reasons whose failures are refunded at their report (REFUND_CARRIER_REASONS and the operator's choices). */
      refunds?: { refundedReasons(): Promise<ReadonlySet<string>> };
    },
  ) {}

  push(reports: DeliveryReport[]): void {
    for (const report of reports) {
      const problem = oversized(report);
      if (problem) this.deps.logger.warn({ connector: report.connector }, `delivery report dropped: ${problem}`);
      else this.queue.push(this.waiting(report));
    }
    this.kick();
  }

  /**
   * Like push, resolving once the reports' transaction committed (a report that matched no
   * message yet is then stored, and kept for retries in memory); rejects when it failed. For callers that
   * acknowledge a carrier's callback only after the report is stored.
   */
  pushAndWait(reports: DeliveryReport[]): Promise<void> {
    const settled = reports.map((report) => {
      const problem = oversized(report);
      if (problem) return Promise.reject(new GatewayError("invalid_request", `The report is refused: ${problem}.`));
      return new Promise<void>((resolve, reject) => {
        this.queue.push({ ...this.waiting(report), settle: (error) => (error ? reject(error) : resolve()) });
      });
    });
    this.kick();
    return Promise.all(settled).then(() => undefined);
  }

  private waiting(report: DeliveryReport): Waiting {
    return { report, receivedAt: this.deps.clock.now().getTime(), retries: 0, retryAt: 0 };
  }

  start(): void {
    this.retryTimer = setInterval(() => {
      if (this.unmatched.length === 0) return;
      const now = Date.now();
      const due = this.unmatched.filter((w) => w.retryAt <= now);
      if (due.length === 0) return;
      this.unmatched = this.unmatched.filter((w) => w.retryAt > now);
      this.deps.metrics.reportRetries.inc(due.length);
      this.queue.push(...due);
      this.kick();
    }, RETRY_FIRST_MS);
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
    this.failures?.flush();
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
      while (this.isolating.length > 0 || this.queue.length > 0) {
        const group = this.isolating.shift() ?? this.queue.splice(0, MAX_GROUP);
        try {
          await this.apply(group);
        } catch (error) {
          await this.failed(group, error);
        }
      }
    } finally {
      this.flushing = false;
      this.markIdle();
    }
  }

  /** One group in one transaction: applied, the rest kept as early reports or done with. */
  private async apply(group: Waiting[]): Promise<void> {
    const { store, webhooks, clock, metrics, logger } = this.deps;
    let events = 0;
    let overLimit = 0;
    // Each report as it applies (its reason, and the message that says it), classified each time
    // it is applied: the report as the carrier gave it is what early_reports keeps.
    const reports = group.map((w) => w.report);
    const classified = await classifyReports(this.deps.reasons, reports);
    const refunds = await this.deps.refunds?.refundedReasons();
    // Reports this process's webhook sender has room for go to it straight after the commit.
    const { rows: changed, ahead } = await withHandoff(store, webhooks, async (trx, handoff) => {
      // The first report of an id the gateway took applies, whichever process took it: the kept
      // one (early_reports holds the first of an id) before any other of its id (firstReportsFirst).
      const kept = await keptReportsOf(trx, reports);
      const { first, later, fromTable } = firstReportsFirst(classified, kept);
      const tableClassified = await classifyReports(this.deps.reasons, fromTable);
      const asApplied = new Map(fromTable.map((report, i) => [report, tableClassified[i]!]));
      const rows = await applyDeliveryReports(
        store,
        trx,
        first.map((report) => asApplied.get(report) ?? report),
        later,
      );
      if (refunds && refunds.size > 0) {
        const refunded = rows.filter((row) => row.status === "failed" && refunds.has(row.error_reason ?? ""));
        if (refunded.length > 0) await refundCarrierFailures(trx, clock, refunded);
      }
      // The delivery_report webhooks, in the same transaction as the states they report.
      if (webhooks) {
        events = await webhooks.deliveryReports(
          trx,
          rows.filter((row) => REPORTED_CHANNELS.has(row.channel)).map((row) => ({ ...row, at: shownEndAt(row)! })),
          clock.now().getTime(),
          handoff,
        );
      }
      // Reports that changed nothing: those still ahead of their message (none carries the id
      // yet, or its record has just committed) are kept, in this transaction, so that a
      // carrier hears they were taken only once they are stored; each as of when it came.
      // (Each changes at most one message; duplicates in the group are applied once.)
      const allChanged = rows.length >= reports.length || rows.length >= new Set(reports.map(keyOf)).size;
      const found = allChanged ? { ahead: [], beforeDue: [] } : await reportsAhead(trx, reports);
      const ahead = new Set(found.ahead);
      const fresh = group.filter((w) => !w.stored && ahead.has(w.report));
      for (const waiting of fresh) waiting.report.keptSince ??= waiting.receivedAt;
      if (fresh.length > 0) {
        const max = this.deps.maxEarlyPerConnector ?? MAX_EARLY_PER_CONNECTOR;
        overLimit = await keepEarlyReports(
          trx,
          fresh.map((w) => w.report),
          clock.now().getTime(),
          { engine: store.engine, max },
        );
      }
      // Kept ones that applied now (or met a message already past `submitted`, or one due only
      // after they came) are done.
      const aheadKeys = new Set(found.ahead.map(keyOf));
      const done = [...group.filter((w) => w.stored).map((w) => w.report), ...fromTable].filter(
        (report) => !aheadKeys.has(keyOf(report)),
      );
      if (done.length > 0) await forgetEarlyReports(trx, done);
      if (found.beforeDue.length > 0) {
        metrics.earlyReportsDropped.inc({ reason: "before_due" }, found.beforeDue.length);
        logger.warn(
          { reports: found.beforeDue.length, ids: found.beforeDue.slice(0, 5).map((r) => r.upstreamId) },
          "delivery reports that came before the message carrying their id was due: not applied to it",
        );
      }
      return { rows, ahead };
    });
    if (events > 0) await store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
    if (overLimit > 0) {
      metrics.earlyReportsDropped.inc({ reason: "over_limit" }, overLimit);
      logger.warn(
        { reports: overLimit },
        "early delivery reports dropped, oldest first: a connector keeps at most EARLY_REPORTS_MAX_PER_CONNECTOR",
      );
    }
    for (const waiting of group) waiting.settle?.();
    this.record(changed);
    this.keepUnmatched(group.filter((w) => ahead.has(w.report)));
  }

  /**
   * A group whose transaction failed. While the database answers, a report in it holds a value
   * the database refuses: the group is split and each half applied on its own, down to that
   * report alone, which is refused (its callback answers 500, so the carrier calls again; one
   * that nobody waits for is tried again from memory a few times, then dropped). While the
   * database does not answer, the whole group waits in memory for it.
   */
  private async failed(group: Waiting[], error: unknown): Promise<void> {
    const { logger } = this.deps;
    const answers = await sql`select 1`.execute(this.deps.store.db).then(
      () => true,
      () => false,
    );
    if (answers && group.length > 1) {
      const half = Math.ceil(group.length / 2);
      this.isolating.unshift(group.slice(0, half), group.slice(half));
      return;
    }
    for (const waiting of group) waiting.settle?.(error as Error);
    if (answers) {
      const [waiting] = group;
      const { report } = waiting!;
      const given = waiting!.settle !== undefined || waiting!.retries >= MAX_REFUSED_RETRIES;
      logger.error(
        { err: error, connector: report.connector, upstreamId: report.upstreamId },
        given ? "a delivery report the database refuses: dropped" : "a delivery report the database refuses; retrying",
      );
      if (given) return;
    } else {
      this.failures ??= new RepeatedErrors(logger);
      this.failures.log("error", error, "applying delivery reports failed; retrying", { reports: group.length });
    }
    const now = Date.now();
    for (const { settle: _settled, ...waiting } of group) {
      waiting.retries += 1;
      waiting.retryAt = now + Math.min(RETRY_FIRST_MS * 2 ** (waiting.retries - 1), RETRY_UNMATCHED_MS);
      this.unmatched.push(waiting);
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
   * Reports still ahead of their message (stored as early reports): tried again here after
   * 250 ms, then at twice the interval each time, for retryUnmatchedMs from the first time the
   * database said so, since their submits' records usually land within milliseconds; after that
   * (or past MAX_RETRIED_IN_MEMORY of them) the sweep applies them once their message is
   * submitted, from whichever process finds it so.
   */
  private keepUnmatched(ahead: Waiting[]): void {
    const retryMs = this.deps.retryUnmatchedMs ?? RETRY_UNMATCHED_MS;
    const now = Date.now();
    for (const waiting of ahead) {
      waiting.stored = true;
      waiting.unmatchedSince ??= now;
      const retryAt = now + RETRY_FIRST_MS * 2 ** waiting.retries;
      if (retryAt - waiting.unmatchedSince > retryMs || this.unmatched.length >= MAX_RETRIED_IN_MEMORY) continue;
      waiting.retries += 1;
      waiting.retryAt = retryAt;
      this.unmatched.push(waiting);
    }
  }

  /**
   * Applies the kept reports whose message is now submitted (their submit recorded after this or
   * another process let go of them: it died, or the record came after retryUnmatchedMs), and
   * removes those that will never apply.
   */
  private async sweep(): Promise<void> {
    const { store, logger, metrics } = this.deps;
    if (!(await hasEarlyReports(store.db))) return;
    const due = await earlyReportsDue(store.db, MAX_GROUP);
    if (due.length > 0) {
      const receivedAt = this.deps.clock.now().getTime();
      for (const report of due) this.queue.push({ report, receivedAt, retries: 0, retryAt: 0, stored: true });
      this.kick();
    }
    const keptBefore = this.deps.clock.now().getTime() - (this.deps.keepEarlyMs ?? KEEP_EARLY_MS);
    const expired = await dropSpentEarlyReports(store.db, keptBefore);
    if (expired > 0) {
      metrics.earlyReportsDropped.inc({ reason: "expired" }, expired);
      logger.warn({ reports: expired }, "delivery reports that matched no message in 48 hours dropped");
    }
  }
}

function keyOf(report: DeliveryReport): string {
  return `${report.connector}\u0000${report.upstreamId}`;
}
