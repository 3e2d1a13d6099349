// The hot paths' caches stay bounded: a BoundedMap keeps at most `max` entries, forgetting all
// the others when a new one comes to a full map.
import { expect, it } from "vitest";
import { BoundedMap } from "../../../src/base/core/bounded-map.js";

it("keeps up to max entries, then forgets the others at the next set", () => {
  const map = new BoundedMap<string, number>(3);
  for (const [i, key] of ["a", "b", "c"].entries()) map.set(key, i);
  expect([...map]).toEqual([
    ["a", 0],
    ["b", 1],
    ["c", 2],
  ]);
  map.set("d", 3);
  expect([...map]).toEqual([["d", 3]]);
  expect(map.get("a")).toBeUndefined();
  expect(map.size).toBe(1);
});

it("stays bounded under any number of distinct keys", () => {
  const map = new BoundedMap<number, number>(100);
  for (let i = 0; i < 10_000; i++) {
    map.set(i, i);
    expect(map.size).toBeLessThanOrEqual(100);
    expect(map.get(i)).toBe(i);
  }
});
