// The smpp connector: hands the dispatcher's SMS to an SMSC over a pool of SMPP sessions and
// turns the SMSC's per-part delivery receipts into one delivery report per message.
//
// A long text goes out as several submit_sm, each with its own message_id and its own receipt.
// Once every part of a message has its id, the parts are stored in message_parts (one
// transaction) and the message's upstream id is its first part's. A receipt is looked up by
// (connector, part id) there; when the last part of a message becomes final, one report goes to
// the report sink: delivered when every part was, failed when any part failed. A receipt can
// overtake the commit of its own parts, so one that names no stored part is tried again a few
// times before it is logged and dropped.
//
// What is retried: a part the SMSC refused with a temporary status (throttled, queue full,
// system error), or that got no answer (time-out, lost connection, not bound in time). A resend
// keeps the concatenation reference (derived from the message id), so a handset that got some
// parts twice still joins them. A part refused for good fails the whole message.
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import type { Connector, InboundSms, SubmitResult } from "../../dispatch/connector.js";
import type { DeliveryReport } from "../../messages/index.js";
import type { MessagePartsTable, MessageRow } from "../../store/schema.js";
import type { Db, Store } from "../../store/store.js";
import { SmppSessionPool } from "./pool.js";
import { type Receipt, receiptIdMatches } from "./receipt.js";
import type { PartResult, SmppSessionOptions } from "./session.js";

/**
 * New messages start only this long into a batch. With parts waiting at most 5 s to be sent and
 * 5 s for their response (the defaults below), a batch returns within 14 s, inside the
 * dispatcher's 15 s lease; messages not started in time go back to the queue.
 */
const START_WINDOW_MS = 4_000;
const DEFAULT_QUEUE_TIMEOUT_MS = 5_000;
const DEFAULT_RESPONSE_TIMEOUT_MS = 5_000;
/** Pauses before looking again for the parts an unmatched receipt names. */
const DEFAULT_RECEIPT_RETRY_MS = [250, 1_000, 3_000, 10_000, 30_000];

export interface SmppConnectorOptions {
  /** The connector's name: messages.connector and the report's key. */
  name: string;
  /** The SMSC account; queueTimeoutMs and responseTimeoutMs default to 5 s here. */
  session: SmppSessionOptions;
  /** Binds to open (default 1). */
  connections?: number;
  store: Store;
  /** How long into a batch new messages may start (default START_WINDOW_MS). */
  startWindowMs?: number;
  /** Messages of a batch in flight at once (default: twice the windows of all connections). */
  concurrency?: number;
  /** The pauses before each new look-up of an unmatched receipt (default 0.25, 1, 3, 10, 30 s). */
  receiptRetryMs?: number[];
  logger?: Logger;
  now?: () => number;
}

/** What we send to: a 10-digit Indian number gets its country code, anything else its digits. */
export function smppDestination(recipient: string): string {
  const digits = recipient.replace(/[\s()-]/g, "").replace(/^\+/, "");
  return /^\d{10}$/.test(digits) ? `91${digits}` : digits;
}

/** The UDH reference of a message: the same on every attempt, so resent parts join the first ones. */
export function concatenationReference(messageId: string): number {
  return createHash("sha1").update(messageId).digest()[0]!;
}

/** The ids under which a receipt's id may have been stored (SMSCs write hex ids in decimal). */
export function receiptIdCandidates(id: string): string[] {
  const candidates = new Set([id, id.toLowerCase(), id.toUpperCase()]);
  if (/^\d+$/.test(id)) {
    const value = BigInt(id);
    candidates.add(value.toString());
    // Some SMSCs pad their hex ids with zeros to a fixed width.
    for (const width of [0, 8, 10, 16]) {
      const hex = value.toString(16).padStart(width, "0");
      candidates.add(hex);
      candidates.add(hex.toUpperCase());
    }
  }
  return [...candidates];
}

type ReceiptOutcome = "applied" | "duplicate" | "unknown";

export class SmppConnector implements Connector {
  readonly name: string;
  readonly channel = "sms";
  readonly pool: SmppSessionPool;
  private reportSink: ((reports: DeliveryReport[]) => void) | undefined;
  private inboundSink: ((messages: InboundSms[]) => Promise<void>) | undefined;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly receiptWork = new Set<Promise<unknown>>();
  private readonly now: () => number;
  private stopped = false;

  constructor(private readonly options: SmppConnectorOptions) {
    this.name = options.name;
    this.now = options.now ?? Date.now;
    const session: SmppSessionOptions = {
      queueTimeoutMs: DEFAULT_QUEUE_TIMEOUT_MS,
      responseTimeoutMs: DEFAULT_RESPONSE_TIMEOUT_MS,
      ...options.session,
    };
    this.pool = new SmppSessionPool(session, options.connections ?? 1);
    this.pool.onReceipt((receipt) => this.receipt(receipt));
    this.pool.onInbound(async (message) => {
      // Rejecting answers the SMSC with a temporary error: it delivers the message again.
      if (!this.inboundSink) throw new Error(`connector ${this.name}: no inbound sink registered`);
      await this.inboundSink([
        {
          to: message.to,
          from: message.from,
          message: message.text,
          connector: this.name,
          receivedAt: message.receivedAt,
        },
      ]);
    });
  }

  onReports(sink: (reports: DeliveryReport[]) => void): void {
    this.reportSink = sink;
  }

  onInbound(sink: (messages: InboundSms[]) => Promise<void>): void {
    this.inboundSink = sink;
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.pool.start();
  }

  /** Resolves once at least one connection is bound. */
  waitBound(timeoutMs?: number): Promise<void> {
    return this.pool.waitBound(timeoutMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    await this.pool.stop();
    await Promise.allSettled([...this.receiptWork]);
  }

  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    const results: SubmitResult[] = new Array(messages.length);
    const started = performance.now();
    const startWindow = this.options.startWindowMs ?? START_WINDOW_MS;
    const window = this.options.session.window ?? 10;
    const concurrency = this.options.concurrency ?? window * (this.options.connections ?? 1) * 2;
    let next = 0;
    const lane = async () => {
      while (next < messages.length) {
        const index = next++;
        results[index] =
          performance.now() - started > startWindow
            ? { ok: false, retryable: true, code: "deferred", message: "Not sent in this round; queued again." }
            : await this.send(messages[index]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, messages.length) }, lane));
    return results;
  }

  private async send(message: MessageRow): Promise<SubmitResult> {
    let parts: PartResult[];
    try {
      const outcome = await this.pool.submit({
        source: message.sender,
        destination: smppDestination(message.recipient),
        text: message.body,
        dltEntityId: message.dlt_entity_id,
        dltTemplateId: message.dlt_template_id,
        reference: concatenationReference(message.id),
        ucs2: message.encoding === "ucs2",
      });
      parts = outcome.parts;
    } catch (error) {
      // Raised before any part was sent (a text that cannot be split, a bad TLV tag).
      return { ok: false, retryable: false, code: "unencodable", message: (error as Error).message.slice(0, 300) };
    }
    const ids: string[] = [];
    let retryable: SubmitResult | null = null;
    for (const [index, part] of parts.entries()) {
      if ("messageId" in part) {
        ids.push(part.messageId);
        continue;
      }
      const where = parts.length > 1 ? ` (part ${index + 1} of ${parts.length})` : "";
      const failure = { ok: false as const, code: part.error, message: `${part.message}${where}`.slice(0, 300) };
      if (!part.retryable) return { ...failure, retryable: false };
      retryable ??= { ...failure, retryable: true };
    }
    if (retryable) return retryable;
    const now = this.now();
    const rows: MessagePartsTable[] = ids.map((upstreamId, index) => ({
      message_id: message.id,
      part_index: index,
      connector: this.name,
      upstream_id: upstreamId,
      status: "pending",
      error_code: null,
      done_at: null,
      created_at: now,
    }));
    try {
      await this.options.store.transaction(async (trx) => {
        // A message sent again (its earlier attempt's outcome unknown to the dispatcher) keeps its latest parts.
        await trx.deleteFrom("message_parts").where("message_id", "=", message.id).execute();
        await trx.insertInto("message_parts").values(rows).execute();
      });
    } catch (error) {
      // The SMSC took the message: failing or retrying it would charge or send it twice.
      this.options.logger?.error(
        { connector: this.name, messageId: message.id, error: (error as Error).message },
        "SMPP parts not stored: their receipts will not be matched",
      );
    }
    return { ok: true, upstreamId: ids[0]! };
  }

  private receipt(receipt: Receipt): Promise<void> {
    if (receipt.status === "other") return Promise.resolve(); // ENROUTE, ACCEPTD, ...: not final
    return this.tryReceipt(receipt, 0, true);
  }

  /** Applies a receipt; an unmatched one is looked up again later (`first`: a failure rejects, so the SMSC resends it). */
  private async tryReceipt(receipt: Receipt, attempt: number, first: boolean): Promise<void> {
    let outcome: ReceiptOutcome;
    try {
      outcome = await this.applyReceipt(receipt);
    } catch (error) {
      if (first) throw error;
      outcome = "unknown";
      this.options.logger?.warn(
        { connector: this.name, upstreamId: receipt.upstreamId, error: (error as Error).message },
        "SMPP receipt not applied",
      );
    }
    if (outcome !== "unknown") return;
    const delays = this.options.receiptRetryMs ?? DEFAULT_RECEIPT_RETRY_MS;
    const delay = delays[attempt];
    if (delay === undefined || this.stopped) {
      this.options.logger?.warn(
        { connector: this.name, upstreamId: receipt.upstreamId, stat: receipt.stat, attempts: attempt + 1 },
        "SMPP receipt for a part we have no record of: dropped",
      );
      return;
    }
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      const work = this.tryReceipt(receipt, attempt + 1, false);
      this.receiptWork.add(work);
      void work.finally(() => this.receiptWork.delete(work));
    }, delay);
    timer.unref();
    this.retryTimers.add(timer);
  }

  private async applyReceipt(receipt: Receipt): Promise<ReceiptOutcome> {
    const { outcome, report } = await this.options.store.transaction(async (trx) => {
      const found = await trx
        .selectFrom("message_parts")
        .selectAll()
        .where("connector", "=", this.name)
        .where("upstream_id", "in", receiptIdCandidates(receipt.upstreamId))
        .execute();
      const matching = found.filter((row) => receiptIdMatches(receipt.upstreamId, row.upstream_id));
      // The id as the SMSC gave it wins: hex id "10" is not the part whose hex id is "a" (decimal 10).
      const exact = matching.filter((row) => row.upstream_id.toLowerCase() === receipt.upstreamId.toLowerCase());
      // An id the SMSC reused (its counter restarted): the part still waiting, the newest one first.
      const waiting = (row: { status: string }) => (row.status === "pending" ? 0 : 1);
      const part = (exact.length > 0 ? exact : matching).sort(
        (a, b) => waiting(a) - waiting(b) || b.created_at - a.created_at,
      )[0];
      if (!part) return { outcome: "unknown" as const, report: null };
      // Locks the message's parts, so of two receipts applied at once only the later sees all final.
      const parts = await this.partsOf(trx, part.message_id, true);
      const current = parts.find((row) => row.part_index === part.part_index);
      if (current?.status !== "pending") return { outcome: "duplicate" as const, report: null };
      const status = receipt.status === "delivered" ? "delivered" : "failed";
      const doneAt = receipt.doneAt ?? this.now();
      const errorCode = status === "failed" ? `${receipt.stat}${receipt.err ? `/${receipt.err}` : ""}` : null;
      await trx
        .updateTable("message_parts")
        .set({ status, error_code: errorCode, done_at: doneAt })
        .where("message_id", "=", part.message_id)
        .where("part_index", "=", part.part_index)
        .execute();
      Object.assign(current, { status, error_code: errorCode, done_at: doneAt });
      return { outcome: "applied" as const, report: this.reportOf(parts) };
    });
    if (report) this.reportSink?.([report]);
    return outcome;
  }

  private async partsOf(trx: Db, messageId: string, lock: boolean) {
    let query = trx.selectFrom("message_parts").selectAll().where("message_id", "=", messageId).orderBy("part_index");
    // SQLite's write transactions are serial already (BEGIN IMMEDIATE).
    if (lock && this.options.store.engine === "postgres") query = query.forUpdate();
    return query.execute();
  }

  /** The message's report once every part is final, else null. */
  private reportOf(parts: MessagePartsTable[]): DeliveryReport | null {
    if (parts.length === 0 || parts.some((row) => row.status === "pending")) return null;
    const at = Math.max(...parts.map((row) => row.done_at ?? 0)) || this.now();
    const upstreamId = parts[0]!.upstream_id;
    const failed = parts.find((row) => row.status === "failed");
    if (!failed) return { connector: this.name, upstreamId, status: "delivered", at };
    const [stat, err] = (failed.error_code ?? "UNDELIV").split("/");
    const where = parts.length > 1 ? ` for part ${failed.part_index + 1} of ${parts.length}` : "";
    return {
      connector: this.name,
      upstreamId,
      status: "failed",
      at,
      code: stat ?? "UNDELIV",
      message: `The carrier reported ${stat}${err ? ` (err ${err})` : ""}${where}.`,
    };
  }
}
