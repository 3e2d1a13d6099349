// The heap as a memory test compares it: what is live after forced collections (vitest runs
// with --expose-gc), so that garbage not yet collected does not count as kept.

/** heapUsed after full collections, once what is left no longer shrinks. */
export async function settledHeap(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("settledHeap needs node --expose-gc (vitest.config.ts sets it)");
  let last = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    // Timers and sockets closing on the next turns free what they held.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    const used = process.memoryUsage().heapUsed;
    if (used >= last - 64 * 1024) return used;
    last = used;
  }
  return last;
}

export const MiB = 1024 * 1024;
