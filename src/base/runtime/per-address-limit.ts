// Connections a port holds per client address, for ports anyone can open (the HTTP port, the SMPP
// server's connections not bound yet): one past the limit is refused, and refusals are logged at
// most every 10 s with how many there were since the last line, so a flood writes one line.

/** Refusals are logged at most this often. */
export const REFUSAL_LOG_MS = 10_000;

export class PerAddressLimit {
  private readonly byAddress = new Map<string, number>();
  private refusedSince = 0;
  private lastLogged = 0;

  constructor(
    private readonly perAddress: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many are open from `address`. */
  openFrom(address: string): number {
    return this.byAddress.get(address) ?? 0;
  }

  /** Whether one more from `address` stays within the limit. */
  admits(address: string): boolean {
    return this.openFrom(address) < this.perAddress;
  }

  opened(address: string): void {
    this.byAddress.set(address, this.openFrom(address) + 1);
  }

  closed(address: string): void {
    const left = this.openFrom(address) - 1;
    if (left <= 0) this.byAddress.delete(address);
    else this.byAddress.set(address, left);
  }

  /**
   * Counts a refusal (by this limit, or by another of the same port, such as its total): answers
   * how many there were since the last line when a line is due, else undefined.
   */
  refused(): number | undefined {
    this.refusedSince++;
    const now = this.now();
    if (now - this.lastLogged < REFUSAL_LOG_MS) return undefined;
    const count = this.refusedSince;
    this.refusedSince = 0;
    this.lastLogged = now;
    return count;
  }
}
