// The legacy families' cache of verified username+password pairs (passwords.ts): what it answers,
// and that an expired pair leaves nothing behind for its account.
import { describe, expect, it } from "vitest";
import { VerifiedPairCache } from "../../../src/domain/auth/passwords.js";

/** How many keys the cache holds, in both of its maps. */
function held(cache: VerifiedPairCache): { entries: number; accounts: number } {
  const inside = cache as unknown as { entries: Map<string, unknown>; byAccount: Map<number, Set<string>> };
  return { entries: inside.entries.size, accounts: inside.byAccount.size };
}

describe("VerifiedPairCache", () => {
  it("answers a pair's account until it expires, and never once its stored hash changed", () => {
    const cache = new VerifiedPairCache(1_000);
    cache.remember("demo", "secret", "hash-1", 7, 0);
    expect(cache.lookup("demo", "secret", "hash-1", 999)).toBe(7);
    expect(cache.lookup("demo", "secret", "hash-2", 999)).toBeUndefined();
    expect(cache.lookup("demo", "wrong", "hash-1", 999)).toBeUndefined();
    expect(cache.lookup("demo", "secret", "hash-1", 1_000)).toBeUndefined();
  });

  it("keeps nothing of an expired pair, in either map", () => {
    const cache = new VerifiedPairCache(1_000);
    cache.remember("demo", "secret", "hash-1", 7, 0);
    cache.remember("demo", "other", "hash-1", 7, 500);
    expect(held(cache)).toEqual({ entries: 2, accounts: 1 });
    expect(cache.lookup("demo", "secret", "hash-1", 1_200)).toBeUndefined();
    expect(held(cache)).toEqual({ entries: 1, accounts: 1 });
    expect(cache.lookup("demo", "other", "hash-1", 1_600)).toBeUndefined();
    expect(held(cache)).toEqual({ entries: 0, accounts: 0 });
  });

  it("forgets an account's pairs at once, and only that account's", () => {
    const cache = new VerifiedPairCache(1_000);
    cache.remember("demo", "secret", "hash-1", 7, 0);
    cache.remember("acme", "secret", "hash-9", 8, 0);
    cache.forgetAccount(7);
    expect(cache.lookup("demo", "secret", "hash-1", 10)).toBeUndefined();
    expect(cache.lookup("acme", "secret", "hash-9", 10)).toBe(8);
    expect(held(cache)).toEqual({ entries: 1, accounts: 1 });
  });

  it("remembers nothing with a TTL of 0", () => {
    const cache = new VerifiedPairCache(0);
    cache.remember("demo", "secret", "hash-1", 7, 0);
    expect(cache.lookup("demo", "secret", "hash-1", 0)).toBeUndefined();
    expect(held(cache)).toEqual({ entries: 0, accounts: 0 });
  });
});
