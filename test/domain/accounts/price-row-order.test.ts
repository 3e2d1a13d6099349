// The card's order (price-row-order.ts): sorted in runs a turn at a time and merged, the rows come
// out as one sort would put them, in the order the database reads them (channel, prefix, route,
// effective_from with `always` first, text compared byte by byte).
import { expect, it } from "vitest";
import { compareInCard, inCardOrder } from "../../../src/domain/accounts/price-row-order.js";
import type { PriceRow } from "../../../src/domain/accounts/price-rows.js";

it("sorts more rows than a run as one sort does", async () => {
  const rows: PriceRow[] = [];
  for (let i = 0; i < 23_456; i++) {
    const n = (i * 7_919) % 23_456;
    rows.push({
      channel: n % 7 === 0 ? "voice" : "sms",
      route: ["T", "P", "PS", "I", "*"][n % 5]!,
      prefix: n % 1_000 === 0 ? "*" : String(n % 9_973),
      price: n,
      effective_from: n % 3 === 0 ? null : n * 1_000,
    });
  }
  const sorted = await inCardOrder(rows);
  expect(sorted).toEqual([...rows].sort(compareInCard));
  expect(sorted.slice(0, 2).map((r) => r.prefix)).toEqual(["*", "*"]);
  expect(await inCardOrder([])).toEqual([]);
});

it("puts always before a date, * before digits, P before PS", () => {
  const row = (prefix: string, route: string, effective_from: number | null): PriceRow => ({
    channel: "sms",
    route,
    prefix,
    price: 1,
    effective_from,
  });
  const rows = [row("91", "PS", null), row("91", "P", 5), row("91", "P", null), row("*", "T", null), row("9", "T", 0)];
  expect([...rows].sort(compareInCard)).toEqual([rows[3], rows[4], rows[2], rows[1], rows[0]]);
});
