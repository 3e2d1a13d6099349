// The smpp connector: hands the dispatcher's SMS to an SMSC over a pool of SMPP sessions and
// turns the SMSC's per-part delivery receipts into one delivery report per message.
//
// A long text goes out as several submit_sm, each with its own message_id and its own receipt.
// Once every part of a message has its id, the parts are stored in message_parts and the
// message's upstream id is its first part's; the messages answered in the same moment share one
// transaction, and submit() returns once all of its batch's are stored. The receipts and the
// reports made of them are connector-reports.ts's.
//
// What is retried: a part the SMSC refused with a temporary status (throttled, queue full,
// system error), or that got no answer (time-out, lost connection, not bound in time). A resend
// keeps the concatenation reference (derived from the message id), so a handset that got some
// parts twice still joins them. A part refused for good fails the whole message.
import { createHash } from "node:crypto";
import pRetry from "p-retry";
import type { Logger } from "pino";
import { internationalDigits } from "../../../base/core/indian-mobile.js";
import type { MessagePartsTable, MessageRow } from "../../../base/store/schema.js";
import type { Store } from "../../../base/store/store.js";
import { type TmChainBook, tmChainValue } from "../../../domain/accounts/index.js";
import type { DeliveryReport } from "../../../domain/messages/index.js";
import { type Connector, DEFERRED, type InboundSms, type SubmitResult } from "../../dispatch/index.js";
import { carrierSource, withCarrierSource } from "../promotional-header.js";
import { ConnectorReports, type DroppedReceipts } from "./connector-reports.js";
import { reportsOfParts } from "./finished-parts.js";
import { GroupedWrites } from "./grouped-writes.js";
import { SmppSessionPool } from "./pool.js";
import type { PartResult, SmppSessionOptions } from "./session.js";
import { type SentMessage, storedPartsOf, storeParts } from "./stored-parts.js";

/**
 * New messages start only this long into a batch. With parts waiting at most 5 s to be sent and
 * 5 s for their response (the defaults below), a batch returns within 14 s, so the dispatcher's
 * transaction that holds its claim stays short; messages not started in time go back to the queue.
 */
const START_WINDOW_MS = 4_000;
const DEFAULT_QUEUE_TIMEOUT_MS = 5_000;
const DEFAULT_RESPONSE_TIMEOUT_MS = 5_000;
/**
 * A parts write that failed (the database away) is tried again after 100 ms, doubling to 1 s:
 * soon after the database is back, since until then another worker that claims the message
 * (its claim released with the failed record) finds no parts and sends it again.
 */
const PART_RETRY = { minTimeout: 100, maxTimeout: 1_000 };

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
  /** How often the receipts kept in the database for a part not stored yet are looked at (default 5 s). */
  keptSweepMs?: number;
  logger?: Logger;
  /** Counts kept receipts dropped (switchboard_early_reports_dropped_total), by reason. */
  dropped?: DroppedReceipts;
  now?: () => number;
  /** The DLT telemarketer chains, sent when the session's dltTags name a tmChain tag. */
  tmChains?: Pick<TmChainBook, "chainOf">;
  /** PROMOTIONAL_HEADER: the source address of the generic sender PROMOTIONAL (promotional-header.ts). */
  promotionalHeader?: string | undefined;
}

/** The UDH reference of a message: the same on every attempt, so resent parts join the first ones. */
export function concatenationReference(messageId: string): number {
  return createHash("sha1").update(messageId).digest()[0]!;
}

export class SmppConnector implements Connector {
  readonly name: string;
  readonly channel = "sms";
  readonly reportsDelivery: boolean;
  readonly pool: SmppSessionPool;
  private inboundSink: ((messages: InboundSms[]) => Promise<void>) | undefined;
  private readonly partWrites: GroupedWrites<SentMessage, undefined>;
  /** The receipts, and the reports made of them. */
  private readonly reports: ConnectorReports;
  private readonly now: () => number;
  private stopped = false;
  /** Ends the retries of parts writes at stop. */
  private readonly stopping = new AbortController();

  constructor(private readonly options: SmppConnectorOptions) {
    this.name = options.name;
    this.now = options.now ?? Date.now;
    // The low two bits of registered_delivery ask for receipts (SMPP 3.4 §5.2.17).
    this.reportsDelivery = ((options.session.registeredDelivery ?? 1) & 0x03) !== 0;
    const session: SmppSessionOptions = {
      queueTimeoutMs: DEFAULT_QUEUE_TIMEOUT_MS,
      responseTimeoutMs: DEFAULT_RESPONSE_TIMEOUT_MS,
      ...options.session,
    };
    const { store } = options;
    this.partWrites = new GroupedWrites(async (sent) => {
      await storeParts(store, this.name, sent, this.now());
      return sent.map(() => undefined);
    });
    this.reports = new ConnectorReports({
      name: this.name,
      store,
      now: this.now,
      logger: options.logger,
      dropped: options.dropped,
      receiptRetryMs: options.receiptRetryMs,
      keptSweepMs: options.keptSweepMs,
      isStopped: () => this.stopped,
    });
    this.pool = new SmppSessionPool(session, options.connections ?? 1);
    this.pool.onReceipt((receipt) => this.reports.receipt(receipt));
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
    this.reports.onReports(sink);
  }

  onInbound(sink: (messages: InboundSms[]) => Promise<void>): void {
    this.inboundSink = sink;
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.pool.start();
    this.reports.start();
  }

  /** Messages whose submit was recorded late: those whose parts are all final are reported now. */
  recordedLate(messageIds: string[]): Promise<void> {
    return this.reports.recordedLate(messageIds);
  }

  /** Resolves once at least one connection is bound. */
  waitBound(timeoutMs?: number): Promise<void> {
    return this.pool.waitBound(timeoutMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort(new Error("connector stopped"));
    this.reports.stop();
    await this.pool.stop();
    await this.reports.settled();
    await this.partWrites.idle();
    await this.reports.idle();
  }

  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    const results: SubmitResult[] = new Array(messages.length);
    const sentBefore = await this.sentBefore(messages);
    const started = performance.now();
    const startWindow = this.options.startWindowMs ?? START_WINDOW_MS;
    const window = this.options.session.window ?? 10;
    const concurrency = this.options.concurrency ?? window * (this.options.connections ?? 1) * 2;
    const writes: Promise<void>[] = [];
    let next = 0;
    const lane = async () => {
      while (next < messages.length) {
        const index = next++;
        const earlier = sentBefore.get(messages[index]!.id);
        if (earlier) {
          results[index] = earlier;
          continue;
        }
        if (performance.now() - started > startWindow) {
          results[index] = DEFERRED;
          continue;
        }
        const sent = this.send(messages[index]!);
        this.reports.sendStarted(sent.then((outcome) => outcome.stored));
        const outcome = await sent;
        results[index] = outcome.result;
        if (outcome.stored) writes.push(outcome.stored);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, messages.length) }, lane));
    // The parts go on being stored while the lanes send: the dispatcher learns of a submit only
    // once its parts are, so their receipts find them.
    await Promise.all(writes);
    return results;
  }

  /**
   * Messages of the batch this connector sent before, whose every part the SMSC took and whose
   * parts are stored, but whose submit the dispatcher never recorded (its record failed with
   * the database, or its worker died after the answers): still queued, they are claimed again.
   * They are not sent again: their result is the earlier send's, its first part's id. Parts
   * whose receipts all came meanwhile give their report now (the report waits, reports.ts,
   * until the message is recorded as submitted).
   */
  private async sentBefore(messages: MessageRow[]): Promise<Map<string, SubmitResult>> {
    const found = new Map<string, SubmitResult>();
    let stored: Map<string, MessagePartsTable[]>;
    try {
      stored = await storedPartsOf(
        this.options.store,
        messages.map((message) => message.id),
        this.name,
      );
    } catch (error) {
      // The database away: the batch is sent as if nothing were stored. Failing it instead
      // (retryable) would count against the carrier's health and mark it down (the fault
      // suite's PostgreSQL restart: 281 failures in a row, then every message backing off).
      this.options.logger?.warn(
        { connector: this.name, error: (error as Error).message },
        "looking up parts stored for the batch failed; sending it as it is",
      );
      return found;
    }
    if (stored.size === 0) return found;
    for (const [messageId, parts] of stored) found.set(messageId, { ok: true, upstreamId: parts[0]!.upstream_id });
    const reports = reportsOfParts(this.name, stored, this.now());
    this.options.logger?.warn(
      { connector: this.name, messages: found.size },
      "messages the SMSC took before, never recorded as submitted: not sent again",
    );
    if (reports.length > 0) this.reports.deliver(reports);
    return found;
  }

  /** The message's entity's telemarketer chain as the carrier wants it, when it wants one. */
  private async tmChainOf(message: MessageRow): Promise<string | undefined> {
    const wanted = this.options.session.dltTags?.tmChain;
    const entityId = message.dlt_entity_id;
    if (!wanted || !entityId || !this.options.tmChains) return undefined;
    const chain = await this.options.tmChains.chainOf(message.account_id, entityId);
    return chain && tmChainValue(entityId, chain, wanted.format);
  }

  /** Sends a message's parts; once all are taken, `stored` is the write that stores them. */
  private async send(message: MessageRow): Promise<{ result: SubmitResult; stored?: Promise<void> }> {
    const source = carrierSource(message, this.options.promotionalHeader);
    if (!source.ok) return { result: source.result };
    let dltTmChain: string | undefined;
    try {
      dltTmChain = await this.tmChainOf(message);
    } catch (error) {
      // Without its chain the operator would drop it: tried again once the database answers.
      const reason = `the DLT telemarketer chain could not be read: ${(error as Error).message}`.slice(0, 300);
      return { result: { ok: false, retryable: true, code: "dlt_chain_unavailable", message: reason } };
    }
    let parts: PartResult[];
    try {
      const outcome = await this.pool.submit({
        source: source.source,
        // With its country code: an Indian number gets 91, an international one has its own already.
        destination: internationalDigits(message.recipient, message.route),
        text: message.body,
        dltEntityId: message.dlt_entity_id,
        dltTemplateId: message.dlt_template_id,
        dltTmChain,
        // Hashed only for a message of several parts.
        reference: () => concatenationReference(message.id),
        ucs2: message.encoding === "ucs2",
      });
      parts = outcome.parts;
    } catch (error) {
      // Raised before any part was sent (a text that cannot be split, a bad TLV tag).
      const reason = (error as Error).message.slice(0, 300);
      return { result: { ok: false, retryable: false, code: "unencodable", message: reason } };
    }
    const ids: string[] = [];
    let retryable: SubmitResult | null = null;
    // The SMSC answered: it got the source address, kept with its answer when not the sender.
    const sent = (result: SubmitResult) => withCarrierSource(result, message.sender, source.source);
    for (const [index, part] of parts.entries()) {
      if ("messageId" in part) {
        ids.push(part.messageId);
        continue;
      }
      const where = parts.length > 1 ? ` (part ${index + 1} of ${parts.length})` : "";
      const failure = { ok: false as const, code: part.error, message: `${part.message}${where}`.slice(0, 300) };
      if (!part.retryable) return { result: sent({ ...failure, retryable: false }) };
      retryable ??= { ...failure, retryable: true };
    }
    if (retryable) return { result: sent(retryable) };
    return {
      result: sent({ ok: true, upstreamId: ids[0]! }),
      stored: this.storeParts({ messageId: message.id, upstreamIds: ids, sentAt: this.now() }),
    };
  }

  /**
   * Stores a message's parts, trying again while the database is away (a restart, a failover):
   * the SMSC took the message, so failing or resending it would charge or send it twice, and
   * parts left unstored would leave its receipts nothing to match. Gives up only at stop.
   */
  private storeParts(sent: SentMessage): Promise<void> {
    return pRetry(() => this.partWrites.add(sent), {
      ...PART_RETRY,
      retries: Number.POSITIVE_INFINITY,
      signal: this.stopping.signal,
      unref: true,
      onFailedAttempt: ({ error, attemptNumber }) => {
        if (attemptNumber === 1) {
          this.options.logger?.warn(
            { connector: this.name, messageId: sent.messageId, error: error.message },
            "SMPP parts not stored yet: trying again",
          );
        }
      },
    }).then(
      () => undefined,
      (error: Error) => {
        this.options.logger?.error(
          { connector: this.name, messageId: sent.messageId, error: error.message },
          "SMPP parts not stored before stop: their receipts will not be matched",
        );
      },
    );
  }
}
