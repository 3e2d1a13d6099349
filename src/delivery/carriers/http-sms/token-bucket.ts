// The send rate cap: a token bucket refilled at `ratePerSecond`, holding a tenth of a second's
// worth (at least one). Lanes reserve their turn synchronously, so concurrent lanes never
// exceed the rate together.
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly capacity: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.capacity = Math.max(1, ratePerSecond / 10);
    this.tokens = this.capacity;
    this.last = now();
  }

  /**
   * Reserves the next send and returns how long to wait for it (ms), or undefined (nothing
   * reserved) when that turn comes later than `latest` (same clock as `now`).
   */
  reserve(latest: number): number | undefined {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) * this.ratePerSecond) / 1000);
    this.last = now;
    const wait = this.tokens >= 1 ? 0 : ((1 - this.tokens) * 1000) / this.ratePerSecond;
    if (now + wait > latest) return undefined;
    this.tokens -= 1;
    return wait;
  }
}
