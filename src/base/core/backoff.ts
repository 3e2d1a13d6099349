// Waits before trying again: exponential back-off with jitter, so that retries that fell due
// together (a carrier or a receiver back from an outage) spread out instead of arriving at once.

/** `ms` ±20 % at random. */
export function jittered(ms: number): number {
  return Math.round(ms * (0.8 + Math.random() * 0.4));
}

/** The wait before attempt n+1 after `attempts` failed ones: base·2^(n-1), capped at `maxMs`, ±20 %. */
export function backoffMs(attempts: number, baseMs: number, maxMs: number): number {
  return jittered(Math.min(baseMs * 2 ** Math.max(0, attempts - 1), maxMs));
}
