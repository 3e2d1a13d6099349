// The simulated SMS carrier looks for due reports every 10 ms only while some are pending (issue
// 43: an idle gateway sleeps): a report is released after the timer was disarmed, a re-sent one
// too, and a stopped simulator keeps no timer. Node's timers and clock are faked, so time moves
// only when the test moves it.
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import type { OnDemandInterval } from "../../../src/base/core/on-demand-interval.js";
import type { MessageRow } from "../../../src/base/store/schema.js";
import { SimulatorConnector } from "../../../src/delivery/dispatch/simulator.js";
import type { DeliveryReport } from "../../../src/domain/messages/index.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const row = (n: number) =>
  ({ id: `q01SIMTIMER${String(n).padStart(15, "0")}`, recipient: `98765${11_000 + n}`, attempts: 1 }) as MessageRow;

/**
 * Whether the simulator's own release timer is armed. Not vi.getTimerCount(): the suite's workers
 * run files one after another in one process (isolate: false), where another file's late timers
 * would be counted too.
 */
const armed = (sms: SimulatorConnector) => (sms as unknown as { releases: OnDemandInterval }).releases.armed;

function simulator() {
  const reports: DeliveryReport[] = [];
  const sms = new SimulatorConnector({ seed: 7, latencyMs: 100, failureRate: 0 });
  sms.onReports((batch) => reports.push(...batch));
  return { sms, reports };
}

it("arms its timer while reports are pending, releases them, and sleeps once none are left", async () => {
  const { sms, reports } = simulator();
  await sms.start();
  expect(armed(sms)).toBe(false);

  const [first] = await sms.submit([row(1)]);
  expect(armed(sms)).toBe(true);
  // Reports come 0.5 to 1.5 × the latency after the submit.
  await vi.advanceTimersByTimeAsync(160);
  expect(reports.map((r) => r.upstreamId)).toEqual([first?.ok && first.upstreamId]);
  expect(armed(sms)).toBe(false);

  // The next submit arms it again.
  const [second] = await sms.submit([row(2)]);
  expect(armed(sms)).toBe(true);
  await vi.advanceTimersByTimeAsync(160);
  expect(reports.map((r) => r.upstreamId)).toEqual([first?.ok && first.upstreamId, second?.ok && second.upstreamId]);
  expect(armed(sms)).toBe(false);

  // A lost report sent again.
  sms.resend([{ id: row(3).id, recipient: row(3).recipient, upstream_id: "SIMRESENT" }]);
  await vi.advanceTimersByTimeAsync(10);
  expect(reports.at(-1)?.upstreamId).toBe("SIMRESENT");
  expect(armed(sms)).toBe(false);
  await sms.stop();
});

it("keeps no timer once stopped, and reports what was pending when started again", async () => {
  const { sms, reports } = simulator();
  await sms.start();
  await sms.submit([row(4)]);
  await sms.stop();
  expect(armed(sms)).toBe(false);
  await vi.advanceTimersByTimeAsync(160);
  expect(reports).toEqual([]);

  await sms.start();
  expect(armed(sms)).toBe(true);
  await vi.advanceTimersByTimeAsync(10);
  expect(reports).toHaveLength(1);
  await sms.stop();
});
