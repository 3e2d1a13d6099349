// Account-local schedule times (base/core/time.ts), as docs/api.md's schedule_at says: read in the
// account's zone, not a real time refused, and daylight saving's skipped and repeated times.
import { describe, expect, it } from "vitest";
import { parseLocalDateTime } from "../../../src/base/core/time.js";

const utc = (text: string, zone: string) => parseLocalDateTime(text, zone)?.toISOString();

describe("parseLocalDateTime", () => {
  it("reads a wall-clock time in the account's zone, seconds optional, T or space", () => {
    expect(utc("2026-11-22 14:00:00", "Asia/Kolkata")).toBe("2026-11-22T08:30:00.000Z");
    expect(utc("2026-11-22T14:00", "Asia/Kolkata")).toBe("2026-11-22T08:30:00.000Z");
  });

  it("refuses what is no time: 24:00, 30 February, another form", () => {
    for (const text of ["2026-11-22 24:00:00", "2026-02-30 10:00:00", "22-11-2026 10:00", "2026-11-22"]) {
      expect(parseLocalDateTime(text, "Asia/Kolkata"), text).toBeUndefined();
    }
  });

  it("moves a time the spring change skips forward by the gap, and reads a repeated one as standard time", () => {
    // New York, 14 March 2027: 02:00 EST becomes 03:00 EDT; 02:30 does not exist.
    expect(utc("2027-03-14 01:59:00", "America/New_York")).toBe("2027-03-14T06:59:00.000Z");
    expect(utc("2027-03-14 02:30:00", "America/New_York")).toBe("2027-03-14T07:30:00.000Z");
    expect(utc("2027-03-14 03:30:00", "America/New_York")).toBe("2027-03-14T07:30:00.000Z");
    // 7 November 2027: 01:30 happens twice; it is read after the clocks went back (EST, -05:00).
    expect(utc("2027-11-07 01:30:00", "America/New_York")).toBe("2027-11-07T06:30:00.000Z");
  });
});
