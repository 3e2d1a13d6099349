// The throughput cap of one SMPP connection: at most `perSecond` PDUs a second, evenly spaced,
// with a burst of `burst` (GCRA, the token bucket written as a schedule).
export class ThroughputCap {
  private readonly interval: number;
  private nextAt = 0;

  constructor(
    perSecond: number,
    private readonly burst = 1,
  ) {
    this.interval = perSecond > 0 ? 1000 / perSecond : 0;
  }

  /** Milliseconds to wait before the next PDU may go (0: now). */
  waitMs(now: number): number {
    if (this.interval === 0) return 0;
    return Math.max(0, this.nextAt - (this.burst - 1) * this.interval - now);
  }

  take(now: number): void {
    this.nextAt = Math.max(this.nextAt, now) + this.interval;
  }
}
