// Comparing a secret-derived value (a MAC, a code's hash) in constant time: Node's
// timingSafeEqual throws on inputs of different lengths, so each caller checked the length first.
import { timingSafeEqual } from "node:crypto";

/**
 * Whether `a` and `b` hold the same bytes, in time that depends only on their lengths. Strings are
 * compared as UTF-8, so a character outside ASCII never stands for an ASCII one (as latin1 would
 * take its low byte: "š" for "a"). Different lengths answer false at once.
 */
export function sameBytes(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const left = typeof a === "string" ? Buffer.from(a, "utf8") : a;
  const right = typeof b === "string" ? Buffer.from(b, "utf8") : b;
  return left.length === right.length && timingSafeEqual(left, right);
}
