// An SMPP session with one SMSC account: a transceiver bind (or a transmitter and receiver pair)
// that submits messages within a window of outstanding submit_sm and under a throughput cap,
// retries ESME_RTHROTTLED and ESME_RMSGQFUL after a back-off without reordering, and hands
// delivery receipts and MO messages to the sinks. Long text goes as concatenated parts, each its
// own submit_sm with its own message_id (and receipt).

import smpp from "smpp";
import {
  type Address,
  type DataCoding,
  type Pdu,
  readMessageId,
  type SubmitSmFields,
  splitMessage,
  submitSmBody,
} from "../../../base/smpp/index.js";
import type { TmChainFormat } from "../../../domain/accounts/index.js";
import { describeCommandStatus } from "./command-status.js";
import { InboundAssembler, type InboundSmppMessage, readDeliver } from "./inbound.js";
import { type BindMode, LinkError, type LinkOptions, SmppLink, statusName } from "./link.js";
import { parseReceipt, type Receipt } from "./receipt.js";
import { ThroughputCap } from "./throughput.js";

export interface DltTags {
  entityId: number;
  templateId: number;
  /** Where and how the DLT telemarketer chain goes; no chain TLV without it. */
  tmChain?: { tag: number; format: TmChainFormat };
}

export interface SmppSessionOptions extends LinkOptions {
  bind?: "transceiver" | "transmitter+receiver";
  /** Most submit_sm awaiting their response at once (default 10). */
  window?: number;
  /** submit_sm per second on this connection; 0 for no cap (default 0). */
  throughputPerSecond?: number;
  throughputBurst?: number;
  /** How long a part may wait to be sent (not bound, window full, throttled) before it fails as retryable (default 10 s). */
  queueTimeoutMs?: number;
  /** First pause after ESME_RTHROTTLED / ESME_RMSGQFUL, doubled for each in a row up to 16× (default 1 s). */
  throttleBackoffMs?: number;
  /** Throttled answers one part may get before it fails as retryable (default 5). */
  maxThrottleRetries?: number;
  /** TLV tags of the Indian DLT entity and template ids (default 0x1400 and 0x1401). */
  dltTags?: DltTags;
  /** Whether the DLT ids end in a NUL (C-Octet String), as some carriers ask (default false: the digits alone). */
  dltNulTerminated?: boolean;
  serviceType?: string;
  sourceTon?: number;
  sourceNpi?: number;
  destinationTon?: number;
  destinationNpi?: number;
  /** registered_delivery of each part (default 1: a receipt on success or failure). */
  registeredDelivery?: number;
  /** The zone receipts' done dates are written in (default UTC). */
  receiptTimeZone?: string;
}

export interface SubmitRequest {
  source: string;
  destination: string;
  text: string;
  dltEntityId?: string | null;
  dltTemplateId?: string | null;
  /** The telemarketer chain as the tags' tmChain format writes it (connector.ts renders it). */
  dltTmChain?: string | null;
  /** This submit's DLT tags, when they differ from the session's. */
  tlvTags?: Partial<DltTags>;
  /**
   * The concatenation reference to use (0–255), e.g. to resend the parts of one message; a
   * function is called only for a message of several parts.
   */
  reference?: number | (() => number);
  /** Send as UCS-2 even when the text is GSM-7. */
  ucs2?: boolean;
}

export type PartResult = { messageId: string } | { error: string; message: string; retryable: boolean };

export interface SubmitOutcome {
  dataCoding: DataCoding;
  /** The UDH reference of a concatenated message, null for a single part. */
  reference: number | null;
  /** One result per part, in order. */
  parts: PartResult[];
}

type Sink<T> = (value: T) => void | Promise<void>;

interface Job {
  order: number;
  /** The submit_sm body, encoded once (a throttled part goes again as it is). */
  body: Buffer;
  throttled: number;
  deadline: number;
  resolve: (result: PartResult) => void;
}

/** Answers worth trying again: the SMSC was busy or failing, not refusing the message. */
const RETRYABLE = new Set([0x04, 0x08, 0x14, 0x58, 0x64]);
const THROTTLED = new Set([smpp.errors.ESME_RTHROTTLED, smpp.errors.ESME_RMSGQFUL]);
const DEFAULT_DLT_TAGS: DltTags = { entityId: 0x1400, templateId: 0x1401 };

/** DLT ids go in vendor TLVs (0x1400–0x3FFF), as ASCII, with a NUL at the end when the carrier wants one. */
function vendorTlv(tag: number, value: string, nul: boolean): [number, Buffer] {
  if (!Number.isInteger(tag) || tag < 0x1400 || tag > 0x3fff) {
    throw new Error(`TLV tag 0x${tag.toString(16)} is not in the vendor range 0x1400–0x3FFF`);
  }
  return [tag, Buffer.from(nul ? `${value}\0` : value, "latin1")];
}

function addressOf(address: string, ton?: number, npi?: number): Address {
  if (/[^+\d]/.test(address)) return { addr: address, ton: ton ?? 5, npi: npi ?? 0 };
  const digits = address.replace(/^\+/, "");
  const international = address.startsWith("+") || digits.length > 8;
  return { addr: digits, ton: ton ?? (international ? 1 : 0), npi: npi ?? 1 };
}

export class SmppSession {
  private readonly submitLink: SmppLink;
  private readonly links: SmppLink[];
  private readonly cap: ThroughputCap;
  private readonly queue: Job[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly assembler: InboundAssembler;
  private order = 0;
  private throttledInARow = 0;
  private pausedUntil = 0;
  private pumpTimer: NodeJS.Timeout | null = null;
  private pumpAt = 0;
  private stopped = false;
  private receiptSink: Sink<Receipt> = () => {};
  private inboundSink: Sink<InboundSmppMessage> = () => {};
  /** The most submit_sm that were ever awaiting a response at once. */
  peakOutstanding = 0;

  /** `assembler`: one shared by the connections of a pool, as a message's parts may come over any of them. */
  constructor(
    private readonly options: SmppSessionOptions,
    assembler?: InboundAssembler,
  ) {
    const modes: BindMode[] = options.bind === "transmitter+receiver" ? ["transmitter", "receiver"] : ["transceiver"];
    this.links = modes.map(
      (mode) =>
        new SmppLink(
          options,
          mode,
          (pdu) => this.receive(pdu),
          () => this.pump(),
        ),
    );
    this.submitLink = this.links[0]!;
    this.cap = new ThroughputCap(options.throughputPerSecond ?? 0, options.throughputBurst ?? 1);
    this.assembler = assembler ?? new InboundAssembler((message) => this.inboundSink(message));
  }

  onReceipt(sink: Sink<Receipt>): void {
    this.receiptSink = sink;
  }

  onInbound(sink: Sink<InboundSmppMessage>): void {
    this.inboundSink = sink;
  }

  start(): void {
    this.stopped = false;
    for (const link of this.links) link.start();
  }

  /** Resolves once every link is bound; rejects with the last bind failure after `timeoutMs`. */
  async waitBound(timeoutMs = 10_000): Promise<void> {
    await Promise.all(this.links.map((link) => link.waitBound(timeoutMs)));
  }

  status() {
    return {
      bound: this.links.every((link) => link.isBound),
      lastError: this.links.map((link) => link.lastError).find((error) => error) ?? null,
      binds: this.submitLink.binds,
      outstanding: this.submitLink.outstanding,
      queued: this.queue.length,
    };
  }

  /** The load a pool balances on: parts waiting and awaiting a response. */
  get load(): number {
    return this.queue.length + this.submitLink.outstanding;
  }

  get isBound(): boolean {
    return this.submitLink.isBound;
  }

  async submit(request: SubmitRequest): Promise<SubmitOutcome> {
    const split = splitMessage(request.text, {
      ...(request.reference === undefined ? {} : { reference: request.reference }),
      ...(request.ucs2 ? { ucs2: true } : {}),
    });
    const source = addressOf(request.source, this.options.sourceTon, this.options.sourceNpi);
    const destination = addressOf(request.destination, this.options.destinationTon, this.options.destinationNpi);
    const tags = { ...DEFAULT_DLT_TAGS, ...this.options.dltTags, ...request.tlvTags };
    const tlvs: SubmitSmFields["tlvs"] = [];
    const nul = this.options.dltNulTerminated ?? false;
    if (request.dltEntityId) tlvs.push(vendorTlv(tags.entityId, request.dltEntityId, nul));
    if (request.dltTemplateId) tlvs.push(vendorTlv(tags.templateId, request.dltTemplateId, nul));
    if (request.dltTmChain && tags.tmChain) tlvs.push(vendorTlv(tags.tmChain.tag, request.dltTmChain, nul));
    const parts = await Promise.all(
      split.parts.map((bytes, i) => {
        const udh = split.udh?.[i];
        let body: Buffer;
        try {
          body = submitSmBody({
            serviceType: this.options.serviceType ?? "",
            source,
            destination,
            esmClass: udh ? 0x40 : 0,
            registeredDelivery: this.options.registeredDelivery ?? 1,
            dataCoding: split.dataCoding,
            shortMessage: udh ? Buffer.concat([udh, bytes]) : bytes,
            tlvs,
          });
        } catch (error) {
          // A field too long for its PDU: no use sending it again.
          return { error: "unencodable", message: (error as Error).message, retryable: false };
        }
        return this.enqueue(body);
      }),
    );
    return { dataCoding: split.dataCoding, reference: split.udh ? split.udh[0]![3]! : null, parts };
  }

  /** Stops taking submits, waits for the responses outstanding, unbinds and closes. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pumpTimer) clearTimeout(this.pumpTimer);
    this.pumpTimer = null;
    for (const job of this.queue.splice(0)) {
      job.resolve({ error: "stopped", message: "the SMPP session stopped before this part was sent", retryable: true });
    }
    await Promise.allSettled([...this.inFlight]);
    this.assembler.flush();
    await Promise.all(this.links.map((link) => link.stop()));
  }

  private enqueue(body: Buffer): Promise<PartResult> {
    if (this.stopped) {
      return Promise.resolve({ error: "stopped", message: "the SMPP session is stopped", retryable: true });
    }
    return new Promise((resolve) => {
      const deadline = Date.now() + (this.options.queueTimeoutMs ?? 10_000);
      this.insert({ order: this.order++, body, throttled: 0, deadline, resolve });
      this.pump();
    });
  }

  /** Queues a job in submit order, so a part sent again after a throttle keeps its place. */
  private insert(job: Job): void {
    let at = this.queue.length;
    while (at > 0 && this.queue[at - 1]!.order > job.order) at--;
    this.queue.splice(at, 0, job);
  }

  /** Pumps again by `delay` from now; a timer already due by then stays (every response pumps, so no re-arming per PDU). */
  private schedulePump(delay: number): void {
    const at = Date.now() + delay;
    if (this.pumpTimer) {
      if (this.pumpAt <= at) return;
      clearTimeout(this.pumpTimer);
    }
    this.pumpAt = at;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      this.pump();
    }, delay);
  }

  private pump(): void {
    const now = Date.now();
    this.expireQueued(now);
    if (this.stopped || this.queue.length === 0) return;
    if (now < this.pausedUntil) {
      this.schedulePump(this.pausedUntil - now);
      return;
    }
    const window = this.options.window ?? 10;
    while (this.queue.length > 0 && this.submitLink.isBound && this.submitLink.outstanding < window) {
      const wait = this.cap.waitMs(Date.now());
      if (wait > 0) {
        this.schedulePump(wait);
        return;
      }
      this.cap.take(Date.now());
      this.send(this.queue.shift()!);
    }
    // Not bound or window full: a response or a bind calls pump again; the timer expires waiting parts.
    const first = this.queue[0];
    if (first) this.schedulePump(Math.max(0, first.deadline - now) + 1);
  }

  /** Deadlines follow submit order, so the expired parts are at the head of the queue. */
  private expireQueued(now: number): void {
    while (this.queue[0] && this.queue[0].deadline <= now) {
      const job = this.queue.shift()!;
      const why = this.submitLink.isBound ? "window full or throttled" : (this.status().lastError ?? "not bound");
      job.resolve({ error: "not_sent", message: `not sent in time (${why})`, retryable: true });
    }
  }

  private send(job: Job): void {
    const request = this.submitLink
      .request("submit_sm", job.body)
      .then(
        (response) => this.answered(job, response),
        (error: Error) =>
          job.resolve(
            error instanceof LinkError
              ? { error: error.code, message: error.message, retryable: true }
              : { error: "internal", message: error.message, retryable: true },
          ),
      )
      // A bug of ours must not leave the submit waiting forever (a settled promise ignores this).
      .catch((error: Error) => job.resolve({ error: "internal", message: error.message, retryable: true }));
    this.peakOutstanding = Math.max(this.peakOutstanding, this.submitLink.outstanding);
    this.inFlight.add(request);
    void request.finally(() => {
      this.inFlight.delete(request);
      this.pump();
    });
  }

  private answered(job: Job, response: Pdu): void {
    const status = response.status;
    if (status === 0) {
      this.throttledInARow = 0;
      job.resolve({ messageId: readMessageId(response.body) });
      return;
    }
    const name = statusName(status);
    const retries = this.options.maxThrottleRetries ?? 5;
    if (THROTTLED.has(status) && !this.stopped && job.throttled < retries && Date.now() < job.deadline) {
      job.throttled++;
      this.throttledInARow++;
      const backoff = (this.options.throttleBackoffMs ?? 1_000) * 2 ** Math.min(this.throttledInARow - 1, 4);
      this.pausedUntil = Math.max(this.pausedUntil, Date.now() + backoff);
      this.insert(job);
      return;
    }
    job.resolve({
      error: name,
      message: `The SMSC answered ${describeCommandStatus(status)}.`,
      retryable: RETRYABLE.has(status),
    });
  }

  private async receive(pdu: Pdu): Promise<number> {
    const deliver = readDeliver(pdu);
    if (deliver.receipt) {
      const receipt = parseReceipt(deliver.receipt, this.options.receiptTimeZone);
      if (!receipt) {
        this.options.log?.("warn", "SMPP receipt without a message id", { text: deliver.receipt.text });
        return 0;
      }
      await this.receiptSink(receipt);
      return 0;
    }
    await this.assembler.add(deliver.message);
    return 0;
  }
}
