// The delivery latency histogram's buckets (accept → delivery receipt), shared by the rollups'
// migration, their writers (domain/messages/rollups.ts) and the analytics that read them: fixed
// log-scale bounds, 100 ms × √2^k, and the columns h00..h35 that count each bucket.
export const LATENCY_BOUNDS_MS: readonly number[] = Array.from({ length: 35 }, (_, k) =>
  Math.round(100 * 2 ** (k / 2)),
);
export const LATENCY_COLUMNS: readonly string[] = Array.from(
  { length: LATENCY_BOUNDS_MS.length + 1 },
  (_, k) => `h${String(k).padStart(2, "0")}`,
);
