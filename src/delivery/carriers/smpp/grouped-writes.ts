// Writes that arrive one at a time (a message's parts, a delivery receipt) applied in groups: the
// items added while a group is being written form the next group, so one transaction carries
// many and groups grow with the load instead of the transactions multiplying. Each item's
// promise settles when its group is written (rejects when the group's write failed).

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class GroupedWrites<T, R> {
  private waiting: Waiting<T, R>[] = [];
  private draining: Promise<void> | null = null;

  /** `write` answers one result per item, in order. */
  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly maxGroup = 500,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      // The first group starts after the current I/O callbacks, so the responses or receipts
      // read from one socket chunk go together.
      this.draining ??= new Promise<void>((started) => setImmediate(started)).then(() => this.drain());
    });
  }

  /** Resolves once everything added so far is written. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const group = this.waiting.splice(0, this.maxGroup);
      try {
        const results = await this.write(group.map((waiting) => waiting.item));
        for (const [index, waiting] of group.entries()) waiting.resolve(results[index]!);
      } catch (error) {
        for (const waiting of group) waiting.reject(error);
      }
    }
    this.draining = null;
  }
}
