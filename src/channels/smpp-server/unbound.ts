// Connections that have not bound yet: anyone can open them, so they are limited per client
// address and in all (SMPP_SERVER_UNBOUND_PER_ADDRESS, SMPP_SERVER_UNBOUND_MAX). One past a
// limit is closed as it arrives; a bind or a close frees the place.

/** Refusals are logged at most this often, with how many there were since the last line. */
const REFUSAL_LOG_MS = 10_000;

export class UnboundConnections<C extends { readonly address: string }> {
  private readonly all = new Set<C>();
  private readonly byAddress = new Map<string, number>();
  private refused = 0;
  private lastLogged = 0;

  constructor(
    private readonly limits: { perAddress: number; max: number },
    private readonly warn: (message: string, details: Record<string, unknown>) => void,
  ) {}

  /** Whether one more connection from `address` may wait for its bind. */
  admits(address: string): boolean {
    const fromAddress = this.byAddress.get(address) ?? 0;
    if (fromAddress < this.limits.perAddress && this.all.size < this.limits.max) return true;
    this.refused++;
    const now = Date.now();
    if (now - this.lastLogged >= REFUSAL_LOG_MS) {
      this.warn("SMPP connections refused: too many not bound", {
        address,
        fromAddress,
        unbound: this.all.size,
        refused: this.refused,
      });
      this.refused = 0;
      this.lastLogged = now;
    }
    return false;
  }

  add(connection: C): void {
    this.all.add(connection);
    this.byAddress.set(connection.address, (this.byAddress.get(connection.address) ?? 0) + 1);
  }

  /** The connection bound or closed. */
  remove(connection: C): void {
    if (!this.all.delete(connection)) return;
    const left = (this.byAddress.get(connection.address) ?? 1) - 1;
    if (left === 0) this.byAddress.delete(connection.address);
    else this.byAddress.set(connection.address, left);
  }
}
