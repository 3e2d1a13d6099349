// Connections that have not bound yet: anyone can open them, so they are limited per client
// address and in all (SMPP_SERVER_UNBOUND_PER_ADDRESS, SMPP_SERVER_UNBOUND_MAX). One past a
// limit is closed as it arrives; a bind or a close frees the place.
import { PerAddressLimit } from "../../base/runtime/per-address-limit.js";

export class UnboundConnections<C extends { readonly address: string }> {
  private readonly all = new Set<C>();
  private readonly perAddress: PerAddressLimit;

  constructor(
    private readonly limits: { perAddress: number; max: number },
    private readonly warn: (message: string, details: Record<string, unknown>) => void,
  ) {
    this.perAddress = new PerAddressLimit(limits.perAddress);
  }

  /** Whether one more connection from `address` may wait for its bind. */
  admits(address: string): boolean {
    if (this.perAddress.admits(address) && this.all.size < this.limits.max) return true;
    const refused = this.perAddress.refused();
    if (refused !== undefined) {
      this.warn("SMPP connections refused: too many not bound", {
        address,
        fromAddress: this.perAddress.openFrom(address),
        unbound: this.all.size,
        refused,
      });
    }
    return false;
  }

  add(connection: C): void {
    this.all.add(connection);
    this.perAddress.opened(connection.address);
  }

  /** The connection bound or closed. */
  remove(connection: C): void {
    if (this.all.delete(connection)) this.perAddress.closed(connection.address);
  }
}
