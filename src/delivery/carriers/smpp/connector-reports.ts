// The smpp connector's side that turns the SMSC's per-part delivery receipts into one delivery
// report per message. Receipts are applied in groups (receipt-matching.ts), one transaction each,
// and acknowledged to the SMSC after the commit. A receipt can overtake the commit of its own
// parts (this process's, or another's: the SMSC hands a receipt to any bind of the account): one
// that names no stored part is kept in the database (early-receipts.ts) in the transaction of
// that first look, tried again once this process's writes are done and once more a moment
// later, and only then answered; then tried again from memory a few times, and every few
// seconds by whichever process sweeps the kept ones. Of two receipts of one id that both came
// early (DELIVRD, then UNDELIV), the first the gateway took applies, in every process: each group
// applies the kept one of its ids first (early-receipts.ts firstReceiptsFirst). Reports lost in
// a crash are found again at start.
import type { Logger } from "pino";
import type { Store } from "../../../base/store/store.js";
import type { DeliveryReport } from "../../../domain/messages/index.js";
import {
  dropOldReceipts,
  firstReceiptsFirst,
  KEEP_RECEIPT_MS,
  type KeptReceipt,
  keptReceipts,
  keptReceiptsOf,
  MAX_KEPT_PER_CONNECTOR,
  settleKept,
} from "./early-receipts.js";
import { reportsOfFinishedParts, unreportedMessages } from "./finished-parts.js";
import { GroupedWrites } from "./grouped-writes.js";
import type { Receipt } from "./receipt.js";
import { applyReceipts, type ReceiptOutcome, type ReceiptToApply } from "./receipt-matching.js";

/** Pauses before looking again for the parts an unmatched receipt names. */
const DEFAULT_RECEIPT_RETRY_MS = [250, 1_000, 3_000, 10_000, 30_000];
/** How often the kept receipts of the connector are looked at. */
const DEFAULT_KEPT_SWEEP_MS = 5_000;
/** Kept receipts tried per sweep. */
const SWEEP_PAGE = 500;
/**
 * A kept receipt younger than this is matched by the sweep under its id as given only: its part
 * may be another process's, whose submit is still being answered or stored (that process looks
 * again from memory, converted readings too, once its sends are stored).
 */
const SWEEP_EXACT_MS = 60_000;

/**
 * A receipt to apply: `keepAt` (when it came) keeps it in early_receipts when it names no stored
 * part; `kept`: it is kept there, and forgotten once it applies (or finds its part final).
 */
type ReceiptWrite = ReceiptToApply & { keepAt?: number; kept?: boolean };

/**
 * Counts kept receipts dropped: `over_limit` past MAX_KEPT_PER_CONNECTOR, `expired` kept
 * KEEP_RECEIPT_MS for a part never stored (switchboard_early_reports_dropped_total's
 * smpp_over_limit and smpp_expired).
 */
export type DroppedReceipts = (reason: "over_limit" | "expired", receipts: number) => void;

export interface ConnectorReportsOptions {
  /** The connector's name. */
  name: string;
  store: Store;
  now: () => number;
  logger?: Logger;
  dropped?: DroppedReceipts | undefined;
  /** The pauses before each new look-up of an unmatched receipt (default 0.25, 1, 3, 10, 30 s). */
  receiptRetryMs?: number[];
  /** Whether the connector is stopped: no receipt is looked up again, the sweep at start ends. */
  isStopped: () => boolean;
  /** How often the connector's kept receipts are looked at (default 5 s). */
  keptSweepMs?: number;
}

export class ConnectorReports {
  private readonly name: string;
  private readonly now: () => number;
  private reportSink: ((reports: DeliveryReport[]) => void) | undefined;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly receiptWork = new Set<Promise<unknown>>();
  private readonly receiptWrites: GroupedWrites<ReceiptWrite, ReceiptOutcome>;
  private keptTimer: NodeJS.Timeout | undefined;
  private keptSweep: Promise<void> | undefined;
  /** Where the next sweep of kept receipts goes on from (a page's last), null from the oldest. */
  private keptCursor: { receivedAt: number; upstreamId: string } | null = null;
  /**
   * Each message being sent, by the order it started in, until its parts are stored (and when it
   * started): what a receipt that names no stored part may be waiting for.
   */
  private readonly sending = new Map<number, { stored: Promise<unknown>; since: number }>();
  private started = 0;

  constructor(private readonly options: ConnectorReportsOptions) {
    this.name = options.name;
    this.now = options.now;
    const { store } = options;
    this.receiptWrites = new GroupedWrites(async (receipts) => {
      const { outcomes, reports, dropped } = await store.transaction(async (trx) => {
        // The first receipt of an id the gateway took applies, whichever process took it: the
        // kept one (early_receipts holds the first of an id) before any other of its id.
        const kept = await keptReceiptsOf(
          store,
          trx,
          this.name,
          receipts.map((receipt) => receipt.upstreamId),
        );
        const { ordered, index } = firstReceiptsFirst(this.name, receipts, kept);
        const applied = await applyReceipts(store, trx, this.name, ordered, this.now());
        const dropped = await settleKept(trx, store.engine, this.name, ordered, applied.outcomes);
        return { reports: applied.reports, outcomes: index.map((i) => applied.outcomes[i]!), dropped };
      });
      if (dropped > 0) {
        options.dropped?.("over_limit", dropped);
        options.logger?.warn(
          { connector: this.name, receipts: dropped, most: MAX_KEPT_PER_CONNECTOR },
          "kept SMPP receipts dropped, oldest first: a connector keeps at most so many",
        );
      }
      if (reports.length > 0) this.reportSink?.(reports);
      return outcomes;
    });
  }

  private get stopped(): boolean {
    return this.options.isStopped();
  }

  onReports(sink: (reports: DeliveryReport[]) => void): void {
    this.reportSink = sink;
  }

  /** Hands reports to the sink (the dispatcher's ReportIngester). */
  deliver(reports: DeliveryReport[]): void {
    this.reportSink?.(reports);
  }

  /** At the connector's start: looks for the reports lost (reportLost), in the background. */
  start(): void {
    const sweep = this.reportLost().catch((error: unknown) =>
      this.options.logger?.error(
        { connector: this.name, error: (error as Error).message },
        "looking for messages whose report was lost failed",
      ),
    );
    this.receiptWork.add(sweep);
    void sweep.finally(() => this.receiptWork.delete(sweep));
    if (this.keptTimer) clearInterval(this.keptTimer);
    this.keptTimer = setInterval(() => {
      if (this.keptSweep || this.stopped) return;
      this.keptSweep = this.sweepKept()
        .catch((error: unknown) =>
          this.options.logger?.warn(
            { connector: this.name, error: (error as Error).message },
            "looking at kept SMPP receipts failed",
          ),
        )
        .finally(() => {
          this.keptSweep = undefined;
        });
    }, this.options.keptSweepMs ?? DEFAULT_KEPT_SWEEP_MS);
    this.keptTimer.unref();
  }

  /** At the connector's stop: no receipt waits for another look-up (those kept stay kept). */
  stop(): void {
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    if (this.keptTimer) clearInterval(this.keptTimer);
    this.keptTimer = undefined;
  }

  /** Settles once the look-ups and the sweeps under way have ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.receiptWork, this.keptSweep]);
  }

  /**
   * A page of the connector's kept receipts, oldest first, applied as they came (those whose part
   * is stored now apply and are forgotten); those kept longer than KEEP_RECEIPT_MS that still name
   * no part are dropped. A read when none is kept.
   *
   * A kept receipt may be for a message still being sent, its parts not stored: only its id as
   * given names its part (exactOnly), as on its first look, while a send of this process that
   * started before it came is not stored, and, for another process's sends, until it is
   * SWEEP_EXACT_MS old. Otherwise a digits-only id ("1000") would be read as hex too and apply to
   * an older part stored as "3e8", while its own is stored a moment later.
   */
  private async sweepKept(): Promise<void> {
    const { store } = this.options;
    const page: KeptReceipt[] = await keptReceipts(store.db, this.name, this.keptCursor, SWEEP_PAGE);
    const last = page.at(-1);
    this.keptCursor =
      last && page.length === SWEEP_PAGE ? { receivedAt: last.receivedAt, upstreamId: last.upstreamId } : null;
    if (page.length === 0) return;
    // Read after the page: a send that started before a receipt of it came is still here unless stored.
    let oldestSending = Number.POSITIVE_INFINITY;
    for (const { since } of this.sending.values()) oldestSending = Math.min(oldestSending, since);
    const youngSince = this.now() - SWEEP_EXACT_MS;
    const outcomes = await Promise.all(
      page.map(({ receivedAt, ...receipt }) =>
        this.receiptWrites.add({
          ...receipt,
          kept: true,
          exactOnly: oldestSending <= receivedAt || receivedAt > youngSince,
        }),
      ),
    );
    const applied = outcomes.filter((outcome) => outcome !== "unknown").length;
    this.options.logger?.debug(
      { connector: this.name, receipts: page.length, applied },
      "kept SMPP receipts looked at",
    );
    if (applied > 0) {
      this.options.logger?.info(
        { connector: this.name, receipts: applied },
        "kept SMPP receipts applied (or their part found final)",
      );
    }
    const keptBefore = this.now() - KEEP_RECEIPT_MS;
    if (page.some((receipt, index) => outcomes[index] === "unknown" && receipt.receivedAt < keptBefore)) {
      const dropped = await dropOldReceipts(store.db, this.name, keptBefore);
      if (dropped > 0) this.options.dropped?.("expired", dropped);
      this.options.logger?.warn(
        { connector: this.name, receipts: dropped },
        "SMPP receipts kept 72 hours for a part never stored: dropped",
      );
    }
  }

  /** Settles once the receipts taken are applied. */
  idle(): Promise<void> {
    return this.receiptWrites.idle();
  }

  /** A message starts being sent; `stored` settles once its parts are stored (or given up). */
  sendStarted(stored: Promise<unknown>): void {
    const order = this.started++;
    this.sending.set(order, { stored, since: this.now() });
    void stored.finally(() => this.sending.delete(order));
  }

  /**
   * Once at start: messages whose parts all have their receipts but which were never reported
   * (the process stopped between a receipt's commit and the report's) get their report now.
   */
  private async reportLost(): Promise<void> {
    const before = this.now();
    let after: { submittedAt: number; id: string } | null = null;
    let found = 0;
    do {
      if (this.stopped) return;
      const page = await unreportedMessages(this.options.store, this.name, before, after, 2_000, this.now());
      if (page.reports.length > 0) this.reportSink?.(page.reports);
      found += page.reports.length;
      after = page.next;
    } while (after);
    if (found > 0) {
      this.options.logger?.warn({ connector: this.name, messages: found }, "reported messages whose report was lost");
    }
  }

  /**
   * Messages whose submit was recorded late (the dispatcher's first record failed): a receipt
   * applied meanwhile made their parts final while they were still queued, and its report
   * changed nothing. Those whose parts are all final are reported now (reports.ts applies a
   * report only to a `submitted` message, so one already reported changes nothing).
   */
  async recordedLate(messageIds: string[]): Promise<void> {
    const reports = await reportsOfFinishedParts(this.options.store, this.name, messageIds, this.now());
    if (reports.length > 0) this.reportSink?.(reports);
  }

  receipt(receipt: Receipt): Promise<void> {
    if (receipt.status === "other") return Promise.resolve(); // ENROUTE, ACCEPTD, ...: not final
    // The messages being sent when it came: it may be for one of them, its parts not stored yet.
    return this.tryReceipt(receipt, 0, this.sending.size > 0 ? this.started : null);
  }

  /**
   * Applies a receipt. One that names no stored part is looked up again once the messages that
   * were being sent when it came (`sentBefore`: those started before that) have their parts
   * stored, as a part's receipt can come before the other parts of its message are answered;
   * then once more a moment later (its part may be another process's, committing now). Until
   * they are stored, only its id as given names its part. The first look that finds no part
   * keeps it in early_receipts (as the first of its id, unless one came before it), so that a
   * later receipt of its id, in any process, applies only after it; still unmatched after the
   * last look, it is answered, then tried again from memory a few times, and by the sweep of the
   * kept ones of every process (a crash or a stop of this one loses nothing). On the first
   * attempt a failure rejects, so the SMSC resends it.
   */
  private async tryReceipt(receipt: Receipt, attempt: number, sentBefore: number | null): Promise<void> {
    const first = attempt === 0;
    const delays = this.options.receiptRetryMs ?? DEFAULT_RECEIPT_RETRY_MS;
    // The first look that finds no part keeps it (the first of its id the gateway took goes
    // before any later one, early-receipts.ts firstReceiptsFirst); from then on it is kept:
    // applied, it is forgotten in the same transaction.
    const kept = { kept: true };
    let outcome: ReceiptOutcome;
    try {
      outcome = await this.receiptWrites.add({
        ...receipt,
        exactOnly: sentBefore !== null,
        ...(first ? { keepAt: this.now() } : kept),
      });
      // Even when they are all stored by now: the look may have run just before the last write.
      if (outcome === "unknown" && sentBefore !== null) {
        await Promise.allSettled(
          [...this.sending].filter(([order]) => order < sentBefore).map(([, sending]) => sending.stored),
        );
        outcome = await this.receiptWrites.add({ ...receipt, ...kept });
      }
      // Its parts may be another process's, committing now: one more look before the SMSC
      // hears that it was taken.
      if (outcome === "unknown" && first) {
        if (delays[0] !== undefined && !this.stopped) {
          await new Promise((resolve) => setTimeout(resolve, delays[0]));
          attempt = 1;
        }
        outcome = await this.receiptWrites.add({ ...receipt, ...kept });
      }
    } catch (error) {
      if (first) throw error;
      outcome = "unknown";
      this.options.logger?.warn(
        { connector: this.name, upstreamId: receipt.upstreamId, error: (error as Error).message },
        "SMPP receipt not applied",
      );
    }
    if (outcome !== "unknown") return;
    const delay = delays[attempt];
    if (delay === undefined || this.stopped) {
      this.options.logger?.warn(
        { connector: this.name, upstreamId: receipt.upstreamId, stat: receipt.stat, attempts: attempt + 1 },
        "SMPP receipt for a part we have no record of yet: kept, applied once its part is stored",
      );
      return;
    }
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      const work = this.tryReceipt(receipt, attempt + 1, null);
      this.receiptWork.add(work);
      void work.finally(() => this.receiptWork.delete(work));
    }, delay);
    timer.unref();
    this.retryTimers.add(timer);
  }
}
