// Delivery reports written already claimed and handed to this process's webhook sender once
// their transaction commits (see DirectSender).
import type { WebhookDeliveryRow } from "../../base/store/schema.js";

/**
 * The webhook sender of this process, when it has one (the worker role). Delivery reports it
 * has room for are written already claimed and handed to it once their transaction commits, so
 * the common case (no earlier event of the message still open) costs no claim round trip.
 */
export interface DirectSender {
  /** Slots for up to `wanted` of the account's deliveries, counted as in flight at once. */
  reserve(accountId: number, wanted: number): number;
  release(accountId: number, count: number): void;
  /** Sends deliveries written as claimed, in reserved slots. */
  takeNow(deliveries: readonly WebhookDeliveryRow[]): void;
  readonly leaseMs: number;
}

/**
 * The deliveries one transaction wrote as claimed: handed to the sender when it committed, or
 * their slots given back when it failed. If the process dies first, their lease runs out and
 * the sender's upkeep makes them pending again, as for any claimed delivery.
 */
export class Handoff {
  private rows: WebhookDeliveryRow[] = [];
  private reserved = new Map<number, number>();

  constructor(readonly sender: DirectSender) {}

  reserve(accountId: number, wanted: number): number {
    const granted = this.sender.reserve(accountId, wanted);
    if (granted > 0) this.reserved.set(accountId, (this.reserved.get(accountId) ?? 0) + granted);
    return granted;
  }

  add(rows: readonly WebhookDeliveryRow[]): void {
    this.rows.push(...rows);
  }

  /** The transaction committed: its claimed deliveries go out now. */
  committed(): void {
    const rows = this.rows;
    // Slots reserved but not written (none, unless a caller reserved more than it wrote) go back.
    for (const row of rows) this.reserved.set(row.account_id, (this.reserved.get(row.account_id) ?? 0) - 1);
    this.failed();
    if (rows.length > 0) this.sender.takeNow(rows);
  }

  /** The transaction failed: nothing was written, every slot goes back. */
  failed(): void {
    for (const [accountId, count] of this.reserved) if (count > 0) this.sender.release(accountId, count);
    this.reserved.clear();
    this.rows = [];
  }
}
