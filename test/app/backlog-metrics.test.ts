// The metrics of what waits, read through /metrics of a real gateway: the queue per channel and
// lane (and the messages held for want of a connector), webhook deliveries pending and given up, and each connector's submit latency. The clock
// is manual, so a retried message or webhook stays where it is until the test moves time.
import { expect, it } from "vitest";
import { ManualClock } from "../../src/base/core/clock.js";
import { DEFAULT_SENDER_OPTIONS, WebhookSender } from "../../src/domain/webhooks/sender.js";
import { Receiver } from "../domain/webhooks/receiver.js";
import { describeEnginesTogether } from "../helpers/engines.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../helpers/gateway.js";
import { FAST_SIMULATOR, keyOf, sendSms } from "../helpers/sms.js";

/** The value of one sample in a /metrics text (0 when the series is absent). */
function valueIn(text: string, name: string, labels = ""): number {
  const line = text.split("\n").find((l) => l.startsWith(labels ? `${name}{${labels}}` : `${name} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

/** The value of one sample of /metrics (0 when the series is absent). */
async function sample(t: TestGateway, name: string, labels = ""): Promise<number> {
  return valueIn((await call(t, "GET", "/metrics")).text, name, labels);
}

/** Polls /metrics until the sample satisfies `ok` (gauges are read at most once a second). */
async function sampleUntil(t: TestGateway, name: string, labels: string, ok: (value: number) => boolean) {
  const deadline = Date.now() + 10_000;
  let value = await sample(t, name, labels);
  while (!ok(value)) {
    if (Date.now() > deadline) throw new Error(`${name}{${labels}} stayed at ${value}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await sample(t, name, labels);
  }
  return value;
}

// The engines' suites run at the same time: their time is waits for gauges read at most once a second.
describeEnginesTogether("metrics of what waits", (engine) => {
  const clock = new ManualClock();
  const gateway = useTestGateway(engine, {
    clock,
    env: { ...FAST_SIMULATOR, SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" },
  });

  it("counts queued messages per channel and lane, and each connector's submit time", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    // ...0003: the simulated carrier throttles the first attempt; the retry is due a second later
    // on a clock that does not move, so both messages wait in the queue.
    const transactional = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876500003", message: "a" });
    const promotional = await sendSms(t, account, {
      sender_id: "PROMOTIONAL",
      recipient: "9876510003",
      message: "b",
      route: "promotional",
    });
    expect([transactional.status, promotional.status]).toEqual([200, 200]);

    // Both first attempts throttled: both wait for their retry.
    const throttled = 'connector="simulator",outcome="retryable"';
    await sampleUntil(t, "switchboard_connector_results_total", throttled, (n) => n === 2);
    expect(await sample(t, "switchboard_connector_submit_seconds_count", 'connector="simulator"')).toBeGreaterThan(0);
    await sampleUntil(t, "switchboard_queue_depth", 'channel="sms",lane="0"', (n) => n === 1);
    await sampleUntil(t, "switchboard_queue_depth", 'channel="sms",lane="1"', (n) => n === 1);

    // One of them as a message held for want of a connector (the dispatcher's connectors_down).
    expect(await sample(t, "switchboard_messages_held", 'channel="sms"')).toBe(0);
    await t.db.store.db
      .updateTable("messages")
      .set({ error_code: "connectors_down", held_since: clock.now().getTime() })
      .where("id", "=", promotional.body.data.message_id)
      .execute();
    await sampleUntil(t, "switchboard_messages_held", 'channel="sms"', (n) => n === 1);
    const system = await call(t, "GET", "/admin/api/system", {
      headers: keyOf(await buildAccount(t, { role: "operator" })),
    });
    expect(system.body.data.queues).toEqual([
      { channel: "sms", lane: 0, queued: 1, held: 0 },
      { channel: "sms", lane: 1, queued: 1, held: 1 },
    ]);

    clock.advance(5_000);
    await sampleUntil(t, "switchboard_queue_depth", 'channel="sms",lane="0"', (n) => n === 0);
    await sampleUntil(t, "switchboard_queue_depth", 'channel="sms",lane="1"', (n) => n === 0);
  });
});

describeEnginesTogether("metrics of webhook deliveries", (engine) => {
  // API only: the test starts the sender itself, after it has looked at the waiting delivery.
  const clock = new ManualClock();
  const gateway = useTestGateway(engine, { clock, roles: ["api"], env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });

  it("counts deliveries waiting, how overdue they are, and attempts by result", async () => {
    const t = gateway();
    const receiver = await new Receiver().start();
    receiver.answer = () => 500;
    const account = await buildAccount(t);
    const set = await call(t, "PUT", "/api/v2/webhooks", {
      headers: keyOf(account),
      json: { delivery_report: receiver.url },
    });
    expect(set.status).toBe(200);
    expect((await call(t, "POST", "/api/v2/webhooks/test", { headers: keyOf(account) })).status).toBe(202);
    await sampleUntil(t, "switchboard_webhook_deliveries_pending", "", (n) => n === 1);
    clock.advance(90_000);
    await sampleUntil(t, "switchboard_webhook_overdue_seconds", "", (n) => n === 90);

    const { ctx } = t.gateway;
    const sender = new WebhookSender(ctx, { ...DEFAULT_SENDER_OPTIONS, allowPrivate: true, idleMs: 20 });
    sender.start();
    try {
      // The attempt fails: the delivery waits for its retry, a few seconds later on the manual clock.
      const retrying = 'event="delivery_report",result="retrying"';
      await sampleUntil(t, "switchboard_webhook_attempts_total", retrying, (n) => n === 1);
      // Pending again and no longer overdue, in one snapshot: one taken while the attempt was being
      // recorded (the delivery still leased, neither pending nor overdue) shows 0 for both.
      const deadline = Date.now() + 10_000;
      const waiting = (text: string) =>
        valueIn(text, "switchboard_webhook_overdue_seconds") === 0 &&
        valueIn(text, "switchboard_webhook_deliveries_pending") === 1;
      let text = (await call(t, "GET", "/metrics")).text;
      while (!waiting(text) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        text = (await call(t, "GET", "/metrics")).text;
      }
      expect(valueIn(text, "switchboard_webhook_overdue_seconds")).toBe(0);
      expect(valueIn(text, "switchboard_webhook_deliveries_pending")).toBe(1);

      // A day later the retry fails again and the delivery is given up.
      clock.advance(25 * 60 * 60 * 1000);
      const failed = 'event="delivery_report",result="failed"';
      await sampleUntil(t, "switchboard_webhook_attempts_total", failed, (n) => n === 1);
      await sampleUntil(t, "switchboard_webhook_deliveries_pending", "", (n) => n === 0);
      expect(await sample(t, "switchboard_webhook_attempts_total", retrying)).toBe(1);
      expect(receiver.received).toHaveLength(2);
    } finally {
      await sender.stop();
      await receiver.stop();
    }
  });
});
