import { describe, expect, it } from "vitest";
import { sameBytes } from "../../../src/base/core/same-bytes.js";

describe("sameBytes", () => {
  it("answers true for the same bytes, as strings, Buffers or one of each", () => {
    expect(sameBytes("q0rS-tUv_w", "q0rS-tUv_w")).toBe(true);
    expect(sameBytes(Buffer.from("a1b2", "hex"), Buffer.from([0xa1, 0xb2]))).toBe(true);
    expect(sameBytes("abc", Buffer.from("abc"))).toBe(true);
    expect(sameBytes("", "")).toBe(true);
    expect(sameBytes("héllo", "héllo")).toBe(true);
  });

  it("answers false for unequal values of the same length", () => {
    expect(sameBytes("q0rS-tUv_w", "q0rS-tUv_x")).toBe(false);
    expect(sameBytes(Buffer.from([1, 2, 3]), Buffer.from([1, 2, 4]))).toBe(false);
  });

  it("answers false, without throwing, for different lengths", () => {
    expect(sameBytes("abc", "abcd")).toBe(false);
    expect(sameBytes("", "a")).toBe(false);
    expect(sameBytes(Buffer.from([1]), Buffer.alloc(0))).toBe(false);
  });

  it("compares non-ASCII text as UTF-8: no character stands for an ASCII one", () => {
    // latin1 would read U+0161 as 0x61 ("a"), and U+0100 as 0x00.
    expect(sameBytes("a", "\u0161")).toBe(false);
    expect(sameBytes("xa", "x\u0161")).toBe(false);
    expect(sameBytes("\u0000", "\u0100")).toBe(false);
    // "é" is two bytes in UTF-8, as long as "ab"; and its decomposed spelling is other bytes.
    expect(sameBytes("ab", "é")).toBe(false);
    expect(sameBytes("é", "e\u0301")).toBe(false);
  });
});
