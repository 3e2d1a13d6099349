// Deterministic pseudo-randomness for the simulated upstreams: the same seed and text always
// give the same number, so a simulator's outcomes replay exactly.

/** FNV-1a of the text, started from the seed: an unsigned 32-bit integer. */
export function hash32(text: string, seed: number): number {
  let h = seed ^ 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Uniform in [0, 1), determined by the seed and the text. */
export function unit(text: string, seed: number): number {
  return hash32(text, seed) / 4294967296;
}
