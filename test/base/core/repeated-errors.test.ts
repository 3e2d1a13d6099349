// RepeatedErrors: the first of identical errors in full (with its stack), the rest counted, a
// count written once a period while they keep coming, and a new episode after a quiet period.
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { RepeatedErrors } from "../../../src/base/core/repeated-errors.js";

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse("2026-12-01T12:00:00Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

function recorder() {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const logger = {
    error: (fields: Record<string, unknown>, msg: string) => lines.push({ level: "error", fields, msg }),
    warn: (fields: Record<string, unknown>, msg: string) => lines.push({ level: "warn", fields, msg }),
  };
  return { lines, logger: logger as never };
}

it("logs the first in full, counts the identical ones, and writes the count once a period", () => {
  const { lines, logger } = recorder();
  const repeated = new RepeatedErrors(logger, { everyMs: 10_000 });
  const down = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
  for (let n = 0; n < 120; n++) repeated.log("error", down(), "request failed");
  repeated.log("error", new Error("another"), "request failed");
  expect(lines.map((line) => line.msg)).toEqual(["request failed", "request failed"]);
  expect((lines[0]!.fields.err as Error).stack).toBeDefined();

  vi.advanceTimersByTime(10_000);
  expect(lines[2]).toMatchObject({
    level: "error",
    msg: "request failed: 119 more since 2026-12-01T12:00:00.000Z (connect ECONNREFUSED 127.0.0.1:5432)",
    fields: { repeated: 119, since: "2026-12-01T12:00:00.000Z", error: "connect ECONNREFUSED 127.0.0.1:5432" },
  });
  expect(lines).toHaveLength(3);
  // Still coming: counted into the next period.
  repeated.log("error", down(), "request failed");
  vi.advanceTimersByTime(10_000);
  expect(lines[3]?.msg).toBe(
    "request failed: 1 more since 2026-12-01T12:00:10.000Z (connect ECONNREFUSED 127.0.0.1:5432)",
  );
  // A period without one ends the episode: the next is in full again.
  vi.advanceTimersByTime(10_000);
  repeated.log("error", down(), "request failed");
  expect(lines[4]).toMatchObject({ msg: "request failed", fields: { err: expect.any(Error) } });
  // flush writes what is held at once (a shutdown).
  repeated.log("error", down(), "request failed");
  repeated.flush();
  expect(lines[5]?.msg).toMatch(/^request failed: 1 more since /);
  expect(lines).toHaveLength(6);
});
