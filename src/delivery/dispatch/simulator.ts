// The simulated SMS carrier: accepts every submit, and reports delivered or failed after a
// configurable latency. Outcomes are a pure function of (seed, message id), so a seed replays
// the same run. Magic recipients make tests deterministic:
//   ...0001 → delivery fails (UNDELIV)   ...0002 → submit rejected (refunded)
//   ...0003 → first submit attempt throttled (retryable), then accepted
//   ...0005 → delivered, then the handset answers "STOP" to the sender, when the sender is a
//             number (a virtual number's keyword reply): an inbound message, through onInbound
//   ...0006 → accepted, and its delivery report never comes (it expires, dispatch/expiry.ts)
// generateInbound() makes any handset send an inbound message to a virtual number.
import fs from "node:fs";
import { OnDemandInterval } from "../../base/core/on-demand-interval.js";
import { hash32, unit } from "../../base/core/seeded.js";
import type { MessageRow } from "../../base/store/schema.js";
import type { DeliveryReport } from "../../domain/messages/index.js";
import type { Connector, InboundSms, SubmitResult } from "./connector.js";

export interface SimulatorOptions {
  seed: number;
  latencyMs: number;
  failureRate: number;
  now?: () => number;
  /** Appends every accepted submit as a JSON line: the carrier's own record of what it received. */
  captureFile?: string | undefined;
}

interface PendingReport {
  dueAt: number;
  report: DeliveryReport;
  /** What the handset answers once the message is delivered (magic recipient 0005). */
  answer?: InboundSms;
}

export class SimulatorConnector implements Connector {
  readonly name = "simulator";
  readonly channel = "sms";
  private sink: ((reports: DeliveryReport[]) => void) | undefined;
  private inboundSink: ((messages: InboundSms[]) => Promise<void>) | undefined;
  private inboundCount = 0;
  private pending: PendingReport[] = [];
  /** Looks for due reports every 10 ms, only while some are pending: an idle gateway sleeps. */
  private readonly releases = new OnDemandInterval(
    10,
    () => this.release(),
    () => this.pending.length > 0,
  );
  private readonly now: () => number;

  constructor(private readonly options: SimulatorOptions) {
    this.now = options.now ?? Date.now;
  }

  onReports(sink: (reports: DeliveryReport[]) => void): void {
    this.sink = sink;
  }

  onInbound(sink: (messages: InboundSms[]) => Promise<void>): void {
    this.inboundSink = sink;
  }

  /** A handset sends `message` from `from` to the virtual number `to`; resolves once the gateway stored it. */
  async generateInbound(input: {
    to: string;
    from: string;
    message: string;
    upstreamId?: string;
  }): Promise<InboundSms> {
    if (!this.inboundSink) throw new Error("The simulator has no inbound sink: start the workers first.");
    this.inboundCount += 1;
    const inbound: InboundSms = {
      to: input.to,
      from: input.from,
      message: input.message,
      connector: this.name,
      upstreamId: input.upstreamId ?? `SIMIN${this.now().toString(36).toUpperCase()}${this.inboundCount}`,
      receivedAt: this.now(),
    };
    await this.inboundSink([inbound]);
    return inbound;
  }

  async start(): Promise<void> {
    this.releases.start();
  }

  async stop(): Promise<void> {
    this.releases.stop();
  }

  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    const now = this.now();
    const results = messages.map((message): SubmitResult => {
      const suffix = message.recipient.slice(-4);
      if (suffix === "0002") {
        return { ok: false, retryable: false, code: "rejected", message: "Simulated carrier rejected the message." };
      }
      if (suffix === "0003" && message.attempts <= 1) {
        return { ok: false, retryable: true, code: "throttled", message: "Simulated carrier throttled the submit." };
      }
      const upstreamId = `SIM${hash32(message.id, this.options.seed).toString(16).toUpperCase()}${message.id.slice(-6)}`;
      this.schedule(message, upstreamId, now);
      return { ok: true, upstreamId };
    });
    if (this.options.captureFile) this.capture(messages, results, now);
    return results;
  }

  private capture(messages: MessageRow[], results: SubmitResult[], at: number): void {
    const lines = messages
      .map((message, index) => {
        const result = results[index];
        if (!result?.ok) return "";
        const { id, recipient, sender, body, encoding, segments, flash } = message;
        return `${JSON.stringify({ id, upstream_id: result.upstreamId, recipient, sender, body, encoding, segments, flash, at })}\n`;
      })
      .join("");
    if (lines) fs.appendFileSync(this.options.captureFile!, lines);
  }

  /** Re-reports messages whose report was lost (for example when the process died). */
  resend(messages: Pick<MessageRow, "id" | "recipient" | "upstream_id">[]): void {
    const now = this.now();
    for (const message of messages) {
      const report = message.upstream_id ? this.outcome(message, message.upstream_id, now) : null;
      if (report) this.pending.push({ dueAt: now, report });
    }
    this.releases.arm();
  }

  /** The longest a report can take, so lost ones can be told from late ones. */
  get maxLatencyMs(): number {
    return Math.ceil(this.options.latencyMs * 1.5);
  }

  private schedule(message: MessageRow, upstreamId: string, now: number): void {
    const jitter = 0.5 + unit(`${message.id}:latency`, this.options.seed);
    const dueAt = now + Math.round(this.options.latencyMs * jitter);
    const report = this.outcome(message, upstreamId, dueAt);
    if (report) this.pending.push({ dueAt, report, answer: this.answerOf(message, report) });
    this.releases.arm();
  }

  /** Recipient 0005 answers STOP to a numeric sender once the message reached it. */
  private answerOf(message: MessageRow, report: DeliveryReport): InboundSms | undefined {
    if (!message.recipient.endsWith("0005") || report.status !== "delivered" || !/\d/.test(message.sender)) return;
    return {
      to: message.sender,
      from: message.recipient,
      message: "STOP",
      connector: this.name,
      upstreamId: `SIMSTOP${message.id}`,
      receivedAt: report.at,
    };
  }

  /** The report the carrier will send, or null for a message whose report never comes. */
  private outcome(
    message: Pick<MessageRow, "id" | "recipient">,
    upstreamId: string,
    at: number,
  ): DeliveryReport | null {
    if (message.recipient.endsWith("0006")) return null;
    const fails =
      message.recipient.endsWith("0001") || unit(`${message.id}:outcome`, this.options.seed) < this.options.failureRate;
    return fails
      ? {
          connector: this.name,
          upstreamId,
          status: "failed",
          at,
          code: "UNDELIV",
          message: "Simulated: not delivered to handset.",
        }
      : { connector: this.name, upstreamId, status: "delivered", at };
  }

  private release(): void {
    if (this.pending.length === 0 || !this.sink) return;
    const now = this.now();
    const due: DeliveryReport[] = [];
    const answers: InboundSms[] = [];
    const later: PendingReport[] = [];
    for (const item of this.pending) {
      if (item.dueAt > now) later.push(item);
      else {
        due.push(item.report);
        if (item.answer) answers.push(item.answer);
      }
    }
    if (due.length === 0) return;
    this.pending = later;
    this.sink(due);
    // The sink logs what it could not store; a simulated handset does not send again.
    if (answers.length > 0) this.inboundSink?.(answers).catch(() => undefined);
  }
}
