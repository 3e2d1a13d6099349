// A row's effective_from read without luxon (price-rows.ts is what the CLI's carriers group loads):
// a date is midnight UTC, a date-time without an offset is UTC, an offset moves the instant, and a
// day or time that is none (31 February, 24:00, a minute of 60) is refused, naming the field.
import { expect, it } from "vitest";
import { isoInstant, PriceRowError, priceRow } from "../../../src/domain/accounts/index.js";

it("reads ISO 8601 dates and date-times as instants", () => {
  expect(isoInstant("2026-12-01")).toBe(Date.parse("2026-12-01T00:00:00Z"));
  expect(isoInstant("2026-12-01T10:30")).toBe(Date.parse("2026-12-01T10:30:00Z"));
  expect(isoInstant("2026-12-01 10:30:15")).toBe(Date.parse("2026-12-01T10:30:15Z"));
  expect(isoInstant("2026-12-01T10:30:15.5Z")).toBe(Date.parse("2026-12-01T10:30:15.500Z"));
  expect(isoInstant("2026-12-01T10:30:15+05:30")).toBe(Date.parse("2026-12-01T05:00:15Z"));
  expect(isoInstant("2026-12-01T10:30:15-0400")).toBe(Date.parse("2026-12-01T14:30:15Z"));
  expect(isoInstant("2028-02-29")).toBe(Date.parse("2028-02-29T00:00:00Z"));
});

it("refuses what is not a day or a time", () => {
  for (const text of [
    "2026-02-31",
    "2027-02-29",
    "2026-13-01",
    "2026-00-10",
    "2026-12-01T24:00",
    "2026-12-01T10:60",
    "2026-12-01T10:30:61",
    "2026-12-01T10:30+25:00",
    "2026-12-1",
    "tomorrow",
    "",
  ]) {
    expect(isoInstant(text), text).toBeUndefined();
  }
  const row = { channel: "sms", route: "T", prefix: "44", price: "1" };
  expect(priceRow({ ...row, effective_from: "2026-12-01" }).effective_from).toBe(Date.parse("2026-12-01T00:00:00Z"));
  expect(() => priceRow({ ...row, effective_from: "2026-02-30" })).toThrow(PriceRowError);
  expect(() => priceRow({ ...row, effective_from: 1_700_000_000_000 })).toThrow(/effective_from must be an ISO 8601/);
});
