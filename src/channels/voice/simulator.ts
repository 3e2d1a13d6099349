// The simulated call provider (the default connector): places every call and walks it through
// the statuses a real one reports, 0.5 to 1.5 × the latency apart, through the same status
// path as the provider's callbacks. Outcomes are a pure function of (seed, message id); a
// share `failureRate` ends busy (30 %), no-answer (60 %) or failed (10 %). Magic callees make
// tests deterministic (last four digits):
//   0001 → failed            0002 → create refused (4xx: failed before the carrier, refunded)
//   0003 → first create throttled (429, retried), then completed
//   0004 → busy              0006 → rings, not answered (no-answer)
// Calls a crashed process was walking are walked again from the start of their outcome.
import type { Logger } from "pino";
import { OnDemandInterval } from "../../base/core/on-demand-interval.js";
import { hash32, unit } from "../../base/core/seeded.js";
import type { MessageRow } from "../../base/store/schema.js";
import type { Store } from "../../base/store/store.js";
import { type Connector, type SubmitResult, VOICE_SIMULATOR_CONNECTOR } from "../../delivery/dispatch/index.js";
import { awaitingReport } from "../../domain/messages/index.js";
import type { CallStatus } from "./call-meta.js";
import type { CallStatusIngester, CallStatusUpdate } from "./call-status.js";

export interface VoiceSimulatorOptions {
  seed: number;
  latencyMs: number;
  failureRate: number;
  now: () => number;
  /** How often to look for calls a crashed process was walking (default LOST_CHECK_MS). */
  lostCheckMs?: number;
}

interface Step {
  dueAt: number;
  update: CallStatusUpdate;
}

const LOST_CHECK_MS = 5_000;
const RETRY_MS = 200;

export class VoiceSimulatorConnector implements Connector {
  readonly name = VOICE_SIMULATOR_CONNECTOR;
  readonly channel = "voice";
  private steps: Step[] = [];
  /** Looks for due steps every 10 ms, only while some are planned: an idle gateway sleeps. */
  private readonly releases = new OnDemandInterval(
    10,
    () => this.release(),
    () => this.steps.length > 0,
  );
  private lostTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: VoiceSimulatorOptions,
    /** Where the statuses go: the same ingestion as the provider's callbacks. */
    private readonly ingester: Pick<CallStatusIngester, "apply" | "start" | "stop">,
    private readonly deps: { store: Store; logger: Logger },
  ) {}

  /** Statuses go to the call-status ingester; nothing is reported through the SMS path. */
  onReports(): void {}

  async start(): Promise<void> {
    this.ingester.start();
    this.releases.start();
    this.lostTimer = setInterval(() => void this.walkLostCalls(), this.options.lostCheckMs ?? LOST_CHECK_MS);
    this.lostTimer.unref();
  }

  async stop(): Promise<void> {
    this.releases.stop();
    clearInterval(this.lostTimer);
    await this.ingester.stop();
  }

  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    const now = this.options.now();
    return messages.map((message): SubmitResult => {
      const suffix = message.recipient.slice(-4);
      if (suffix === "0002") {
        return {
          ok: false,
          retryable: false,
          code: "rejected",
          message: "HTTP 400: Simulated provider refused the call.",
        };
      }
      if (suffix === "0003" && message.attempts <= 1) {
        return { ok: false, retryable: true, code: "throttled", message: "HTTP 429: Simulated provider is busy." };
      }
      const callSid = this.callSidOf(message.id);
      this.add(this.plan(message, callSid, now));
      return { ok: true, upstreamId: callSid };
    });
  }

  /** The longest a simulated call takes from placement to its final status. */
  get maxCallMs(): number {
    return Math.ceil(this.options.latencyMs * 4.5);
  }

  private callSidOf(messageId: string): string {
    return `SIMCA${hash32(messageId, this.options.seed).toString(16).toUpperCase().padStart(8, "0")}${messageId.slice(-8)}`;
  }

  private outcome(message: Pick<MessageRow, "id" | "recipient">): CallStatus {
    const suffix = message.recipient.slice(-4);
    if (suffix === "0001") return "failed";
    if (suffix === "0004") return "busy";
    if (suffix === "0006") return "no-answer";
    if (unit(`${message.id}:outcome`, this.options.seed) >= this.options.failureRate) return "completed";
    const which = unit(`${message.id}:failure`, this.options.seed);
    return which < 0.3 ? "busy" : which < 0.9 ? "no-answer" : "failed";
  }

  private plan(message: Pick<MessageRow, "id" | "recipient" | "meta">, callSid: string, start: number): Step[] {
    const { latencyMs, seed } = this.options;
    const gap = (n: number) => Math.round(latencyMs * (0.5 + unit(`${message.id}:${n}`, seed)));
    const step = (after: number, status: CallStatus, durationSeconds?: number): Step => ({
      dueAt: start + after,
      update: { connector: this.name, callSid, status, at: start + after, durationSeconds },
    });
    const ring = gap(1);
    switch (this.outcome(message)) {
      case "busy":
        return [step(0, "initiated"), step(ring, "busy", 0)];
      case "failed":
        return [step(0, "initiated"), step(ring, "failed", 0)];
      case "no-answer":
        return [step(0, "initiated"), step(ring, "ringing"), step(ring + 2 * gap(2), "no-answer", 0)];
      default: {
        const answered = ring + gap(2);
        return [
          step(0, "initiated"),
          step(ring, "ringing"),
          step(answered, "in-progress"),
          step(answered + gap(3), "completed", speechSecondsOf(message.meta)),
        ];
      }
    }
  }

  private add(steps: Step[]): void {
    this.steps.push(...steps);
    this.releases.arm();
  }

  private release(): void {
    if (this.steps.length === 0) return;
    const now = this.options.now();
    const due: Step[] = [];
    const later: Step[] = [];
    for (const item of this.steps) {
      if (item.dueAt <= now) due.push(item);
      else later.push(item);
    }
    if (due.length === 0) return;
    this.steps = later;
    this.ingester.apply(due.map((item) => item.update)).catch((error: unknown) => {
      // A failed transaction (a busy database) must not lose the call's progress: try again shortly.
      this.deps.logger.warn({ err: error }, "storing simulated call statuses failed; retrying");
      this.add(due.map((item) => ({ ...item, dueAt: now + RETRY_MS })));
    });
  }

  /** Submitted calls of this simulator that nobody is walking (their process died) are walked again. */
  private async walkLostCalls(): Promise<void> {
    const now = this.options.now();
    try {
      const before = now - this.maxCallMs - (this.options.lostCheckMs ?? LOST_CHECK_MS);
      const rows = await awaitingReport(this.deps.store, this.name, before, 500);
      const walking = new Set(this.steps.map((s) => s.update.callSid));
      for (const row of rows) {
        if (row.upstream_id && !walking.has(row.upstream_id)) this.add(this.plan(row, row.upstream_id, now));
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, "looking for lost simulated calls failed");
    }
  }
}

function speechSecondsOf(meta: string | null): number {
  try {
    const value = (JSON.parse(meta ?? "{}") as { speech_seconds?: unknown }).speech_seconds;
    return typeof value === "number" ? value : 1;
  } catch {
    return 1;
  }
}
