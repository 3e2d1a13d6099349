// Several SMPP connections to one carrier account (carriers grant a number of binds, each with
// its own window and throughput cap): a message goes whole to the bound connection with the
// least work waiting, and receipts and MO messages from any of them reach the same sinks.
import { InboundAssembler, type InboundSmppMessage } from "./inbound.js";
import type { Receipt } from "./receipt.js";
import { SmppSession, type SmppSessionOptions, type SubmitOutcome, type SubmitRequest } from "./session.js";

export class SmppSessionPool {
  readonly sessions: SmppSession[];
  private readonly assembler: InboundAssembler;
  private inboundSink: (message: InboundSmppMessage) => void | Promise<void> = () => {};

  constructor(options: SmppSessionOptions, connections: number) {
    if (!Number.isInteger(connections) || connections < 1) {
      throw new Error(`an SMPP carrier needs at least one connection, not ${connections}`);
    }
    this.assembler = new InboundAssembler((message) => this.inboundSink(message));
    this.sessions = Array.from({ length: connections }, () => new SmppSession(options, this.assembler));
  }

  onReceipt(sink: (receipt: Receipt) => void | Promise<void>): void {
    for (const session of this.sessions) session.onReceipt(sink);
  }

  onInbound(sink: (message: InboundSmppMessage) => void | Promise<void>): void {
    this.inboundSink = sink;
  }

  start(): void {
    for (const session of this.sessions) session.start();
  }

  /** Resolves once at least one connection is bound. */
  waitBound(timeoutMs = 10_000): Promise<void> {
    return Promise.any(this.sessions.map((session) => session.waitBound(timeoutMs))).catch((error: AggregateError) => {
      throw error.errors[0] ?? error;
    });
  }

  /** All parts of a message go over one connection, so they share its order and throttling. */
  submit(request: SubmitRequest): Promise<SubmitOutcome> {
    const bound = this.sessions.filter((session) => session.isBound);
    const candidates = bound.length > 0 ? bound : this.sessions;
    const least = candidates.reduce((best, session) => (session.load < best.load ? session : best));
    return least.submit(request);
  }

  async stop(): Promise<void> {
    await Promise.all(this.sessions.map((session) => session.stop()));
  }
}
