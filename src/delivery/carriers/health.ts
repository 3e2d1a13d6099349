// Whether a connector takes traffic. Two sources: what the connector knows of itself (an SMPP
// connector with no bound connection is down, with some of them degraded) and what its results
// say (a circuit breaker: after `threshold` retryable failures in a row it is down for
// `cooldownMs`; then it gets traffic again, and one more failure opens it again while one
// success closes it). The router leaves out connectors that are down.
import { type Outcome, outcomeOf, type SubmitResult } from "../dispatch/index.js";

export type HealthState = "up" | "degraded" | "down";

export interface NativeHealth {
  state: HealthState;
  reason: string | null;
  sessions?: { total: number; bound: number; outstanding: number; queued: number };
}

export interface ConnectorHealth {
  connector: string;
  type: string;
  state: HealthState;
  reason: string | null;
  sessions: NativeHealth["sessions"] | null;
  results: Record<Outcome, number>;
  /** Of its last RECENT_SUBMITS answered submits (deferred ones aside), how many the carrier refused. */
  recent: { submits: number; refused: number };
  last_error: { code: string; message: string; at: string } | null;
  /** While the circuit is open: when traffic is tried again. */
  retry_at: string | null;
}

export interface HealthOptions {
  /** Retryable failures in a row that open the circuit (default 10). */
  threshold?: number;
  /** How long an open circuit keeps the connector out (default 10 s). */
  cooldownMs?: number;
  now?: () => number;
}

/** The submits a connector's recent refusal share is taken over (adaptive routes' window). */
export const RECENT_SUBMITS = 500;

export class HealthTracker {
  private consecutive = 0;
  private openUntil = 0;
  private readonly counts: Record<Outcome, number> = { ok: 0, retryable: 0, failed: 0, deferred: 0 };
  /** A ring of the last RECENT_SUBMITS answers: 1 refused, 0 taken. */
  private readonly recentRing = new Uint8Array(RECENT_SUBMITS);
  private recentNext = 0;
  private recentFilled = 0;
  private recentRefused = 0;
  private lastError: { code: string; message: string; at: number } | null = null;
  /** The circuit opened and no submit has succeeded since. */
  private tripped = false;
  /** A submit succeeded after the circuit had opened, not yet taken (takeRecovery). */
  private recovered = false;
  private readonly threshold: number;
  private readonly cooldownMs: number;
  private readonly now: () => number;

  constructor(
    readonly connector: string,
    readonly type: string,
    private readonly native: () => NativeHealth | null = () => null,
    options: HealthOptions = {},
  ) {
    this.threshold = options.threshold ?? 10;
    this.cooldownMs = options.cooldownMs ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  observe(results: readonly SubmitResult[]): void {
    for (const result of results) {
      const outcome = outcomeOf(result);
      this.counts[outcome]++;
      if (outcome !== "deferred") this.remember(result.ok ? 0 : 1);
      if (result.ok) {
        this.consecutive = 0;
        this.openUntil = 0;
        if (this.tripped) {
          this.tripped = false;
          this.recovered = true;
        }
        continue;
      }
      // Not started within the batch's time: says the connector is busy, not broken.
      if (outcome === "deferred") continue;
      this.lastError = { code: result.code, message: result.message, at: this.now() };
      // Refused for good: the message was wrong for this carrier, not the carrier down.
      if (outcome === "failed") continue;
      this.consecutive++;
      if (this.consecutive >= this.threshold) {
        this.openUntil = this.now() + this.cooldownMs;
        this.tripped = true;
      }
    }
  }

  private remember(refused: 0 | 1): void {
    if (this.recentFilled === RECENT_SUBMITS) this.recentRefused -= this.recentRing[this.recentNext]!;
    else this.recentFilled++;
    this.recentRing[this.recentNext] = refused;
    this.recentRefused += refused;
    this.recentNext = (this.recentNext + 1) % RECENT_SUBMITS;
  }

  /** Whether a submit succeeded after the circuit had opened (the carrier is back), once. */
  takeRecovery(): boolean {
    const recovered = this.recovered;
    this.recovered = false;
    return recovered;
  }

  isUp(): boolean {
    return this.state().state !== "down";
  }

  private state(): { state: HealthState; reason: string | null; native: NativeHealth | null } {
    const native = this.native();
    if (this.openUntil > this.now()) {
      return {
        state: "down",
        reason: `${this.consecutive} retryable failures in a row (last: ${this.lastError?.code ?? "?"})`,
        native,
      };
    }
    return { state: native?.state ?? "up", reason: native?.reason ?? null, native };
  }

  snapshot(): ConnectorHealth {
    const { state, reason, native } = this.state();
    return {
      connector: this.connector,
      type: this.type,
      state,
      reason,
      sessions: native?.sessions ?? null,
      results: { ...this.counts },
      recent: { submits: this.recentFilled, refused: this.recentRefused },
      last_error: this.lastError ? { ...this.lastError, at: new Date(this.lastError.at).toISOString() } : null,
      retry_at: this.openUntil > this.now() ? new Date(this.openUntil).toISOString() : null,
    };
  }
}
