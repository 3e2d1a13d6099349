// An SMSC that goes away (a proxy in front of a fake SMSC, cut): the link's first loss is a
// warning, the reconnect attempts that fail after it are debug lines, and a warning sums them up
// once per reconnectSummaryMs; the bind that ends the outage says how many attempts it took.
// Before: a warning per attempt (12 in 40 s for one SMSC in the audit).
import { afterEach, expect, it } from "vitest";
import { SmppLink } from "../../../src/delivery/carriers/smpp/link.js";
import { TcpProxy } from "../../helpers/tcp-proxy.js";
import { FakeSmsc } from "./fake-smsc.js";

interface Line {
  level: string;
  message: string;
  details: Record<string, unknown>;
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

it("warns once when the SMSC goes, sums the attempts up once a period, and says when it is back", async () => {
  const smsc = new FakeSmsc();
  await smsc.start();
  const proxy = new TcpProxy("127.0.0.1", smsc.port);
  await proxy.start();
  const lines: Line[] = [];
  let waiter: { until: () => boolean; resolve: () => void } | undefined;
  // A clock that moves 100 ms each time the link reads it: the summaries fall where the count says.
  let clock = 0;
  const link = new SmppLink(
    {
      host: "127.0.0.1",
      port: proxy.port,
      systemId: smsc.systemId,
      password: smsc.password,
      reconnectInitialMs: 2,
      reconnectMaxMs: 10,
      reconnectSummaryMs: 1_000,
      now: () => (clock += 100),
      log: (level, message, details = {}) => {
        lines.push({ level, message, details });
        if (waiter?.until()) waiter.resolve();
      },
    },
    "transceiver",
    async () => 0,
    () => undefined,
  );
  const logged = (until: () => boolean) =>
    until() ? Promise.resolve() : new Promise<void>((resolve) => (waiter = { until, resolve }));
  cleanup = async () => {
    await link.stop();
    await proxy.cut();
    await smsc.stop();
  };
  link.start();
  await link.waitBound(10_000);

  await proxy.cut();
  const failedAttempts = () => lines.filter((line) => line.message === "SMPP reconnect failed, trying again").length;
  await logged(() => failedAttempts() >= 40);
  await proxy.restore();
  await logged(() => lines.filter((line) => line.message === "SMPP bound").length >= 2);

  const outage = lines.slice(lines.findIndex((line) => line.message === "SMPP connection lost, reconnecting"));
  const warnings = outage.filter((line) => line.level === "warn");
  expect(warnings[0]?.message).toBe("SMPP connection lost, reconnecting");
  const summaries = warnings.slice(1);
  const attempts = outage.filter((line) => line.level === "debug").length + summaries.length;
  // One summary per 1 000 ms of the clock, which moves 100 ms an attempt: about one per 10.
  expect(summaries.length).toBeGreaterThanOrEqual(Math.floor(attempts / 11));
  expect(summaries.length).toBeLessThanOrEqual(Math.ceil(attempts / 10));
  for (const summary of summaries) {
    expect(summary.message).toMatch(/^SMPP still reconnecting: \d+ attempts failed since \d{4}-/);
  }
  const back = outage.find((line) => line.message === "SMPP bound");
  expect(back?.level).toBe("info");
  expect(back?.details.reconnect_attempts).toBe(attempts);
  expect(back?.details.down_seconds).toEqual(expect.any(Number));
});
