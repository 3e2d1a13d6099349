// Broadcast sequence numbers, allocated in blocks (hi/lo): one database write per thousand
// ids instead of one per send. A crash leaves a gap, never a duplicate.
import { sql } from "kysely";
import type { Store } from "../../base/store/store.js";

export class SequenceAllocator {
  private next = 0;
  private last = -1;
  private refill: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly name: string,
    private readonly blockSize = 1000,
  ) {}

  /** Makes sure at least `count` numbers are ready, so `take` can run inside a transaction. */
  async reserve(count: number): Promise<void> {
    while (this.last - this.next + 1 < count) {
      this.refill ??= this.allocate(Math.max(this.blockSize, count)).finally(() => {
        this.refill = undefined;
      });
      await this.refill;
    }
  }

  /**
   * The next number, refilling the block when it is used up. The check and the take happen in
   * one synchronous step: with `reserve(1)` then `take()`, concurrent callers woken by the same
   * refill could all pass the check and then exhaust the block between the two.
   */
  async nextNumber(): Promise<number> {
    while (this.next > this.last) await this.reserve(1);
    return this.next++;
  }

  take(): number {
    if (this.next > this.last) throw new Error(`sequence ${this.name} exhausted: call reserve() first`);
    return this.next++;
  }

  private async allocate(size: number): Promise<void> {
    const row = await this.store.transaction((trx) =>
      trx
        .insertInto("sequences")
        .values({ name: this.name, value: size })
        .onConflict((oc) => oc.column("name").doUpdateSet({ value: sql`sequences.value + ${size}` }))
        .returning("value")
        .executeTakeFirstOrThrow(),
    );
    // Numbers left in the old block are dropped; they would only make a gap.
    this.last = row.value;
    this.next = row.value - size + 1;
  }
}
