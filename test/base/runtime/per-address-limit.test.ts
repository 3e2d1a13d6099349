// The per-address count the HTTP port and the SMPP server's unbound connections share: the limit
// per address, places freed on close, and refusals reported at most every 10 s with their count.
import { describe, expect, it } from "vitest";
import { PerAddressLimit, REFUSAL_LOG_MS } from "../../../src/base/runtime/per-address-limit.js";

describe("PerAddressLimit", () => {
  it("admits up to the limit from one address, each address apart, and frees a place on close", () => {
    const limit = new PerAddressLimit(2);
    limit.opened("10.0.0.1");
    limit.opened("10.0.0.1");
    expect(limit.admits("10.0.0.1")).toBe(false);
    expect(limit.openFrom("10.0.0.1")).toBe(2);
    expect(limit.admits("10.0.0.2")).toBe(true);
    limit.closed("10.0.0.1");
    expect(limit.admits("10.0.0.1")).toBe(true);
    limit.closed("10.0.0.1");
    // A close of what was never counted does not go below nothing.
    limit.closed("10.0.0.1");
    expect(limit.openFrom("10.0.0.1")).toBe(0);
    limit.opened("10.0.0.1");
    limit.opened("10.0.0.1");
    expect(limit.admits("10.0.0.1")).toBe(false);
  });

  it("reports refusals at most every 10 s, with how many there were since the last report", () => {
    let now = 1_000_000;
    const limit = new PerAddressLimit(1, () => now);
    expect(limit.refused()).toBe(1);
    expect(limit.refused()).toBeUndefined();
    now += REFUSAL_LOG_MS - 1;
    expect(limit.refused()).toBeUndefined();
    now += 1;
    expect(limit.refused()).toBe(3);
    now += REFUSAL_LOG_MS;
    expect(limit.refused()).toBe(1);
  });
});
