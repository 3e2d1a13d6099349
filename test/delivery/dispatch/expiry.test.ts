// A message whose delivery report never comes fails as `expired` after MESSAGE_VALIDITY_HOURS
// (48 h by default), through a real gateway on a manual clock: reported by webhook, counted in
// its bulk job, not refunded (the carrier took it); not a moment early; and never for a
// connector that does not report delivery, whose messages stay submitted.
import { expect, it, vi } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { expireUnreportedMessages } from "../../../src/delivery/dispatch/expiry.js";
import { receiver, until, useReceivers } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { balanceOf, keyOf, sendSms, statusOf } from "../../helpers/sms.js";
import { FakeAggregator } from "../carriers/fake-aggregator.js";

// Its slowest tests take up to 10 s alone amid the whole suite on a slow two-core machine, where a
// test of the same kind once took four times as long as usual: twice the default bound.
vi.setConfig({ testTimeout: 60_000 });

useReceivers();

const HOUR = 60 * 60 * 1000;

describeEachEngine("messages without a delivery report", (engine) => {
  const clock = new ManualClock();
  const gateway = useTestGateway(engine, {
    clock,
    env: { SIMULATOR_LATENCY_MS: "50", SIMULATOR_FAILURE_RATE: "0", SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" },
  });

  const statusesOf = async (account: TestAccount, ids: string[]) =>
    Promise.all(ids.map(async (id) => (await statusOf(gateway(), account, id)).body.data.status as string));
  /**
   * Housekeeping's look for expired messages (every 10th round of a second), at the clock the test
   * set: how many it failed. Sleeping through two rounds, as before, saw a look only one time in
   * five.
   */
  const expiryLook = () => {
    const t = gateway();
    return expireUnreportedMessages(t.gateway.ctx, (connector) =>
      t.gateway.workers!.carriers.reportsDelivery(connector),
    );
  };

  it("fails them as expired after 48 h, reported and counted, without a refund", async () => {
    const t = gateway();
    const hooks = await receiver();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    expect(
      (await call(t, "PUT", "/api/v2/webhooks", { headers: keyOf(account), json: { delivery_report: hooks.url } }))
        .status,
    ).toBe(200);
    // ...0006: the simulated carrier takes the message and never reports it.
    const silent = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876500006", message: "lost" });
    const reported = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "fine" });
    const bulk = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: keyOf(account),
      json: { sender_id: "SWBRD", message: "bulk", recipients: ["9700000006", "9700010006"] },
    });
    expect([silent.status, reported.status, bulk.status]).toEqual([200, 200, 200]);
    await until(async () => {
      const rows = (await call(t, "GET", "/api/v2/messages", { headers: keyOf(account) })).body.data;
      return rows.length === 4 && rows.every((row: { status: string }) => row.status === "submitted");
    });
    const rows = (await call(t, "GET", "/api/v2/messages", { headers: keyOf(account) })).body.data;
    const lost = rows
      .filter((row: { mobile: string }) => row.mobile !== "9876543210")
      .map((row: { message_id: string }) => row.message_id);
    clock.advance(1_000);
    await until(async () => (await statusesOf(account, [reported.body.data.message_id]))[0] === "delivered");

    clock.advance(48 * HOUR - 60_000);
    expect(await expiryLook()).toBe(0);
    expect(await statusesOf(account, lost)).toEqual(["submitted", "submitted", "submitted"]);

    clock.advance(2 * 60_000);
    // This look fails them, or housekeeping's own (every 10 s) if it came first and is committing:
    // waiting for housekeeping alone took 10 s one run in five.
    await expiryLook();
    await until(async () => (await statusesOf(account, lost)).every((status) => status === "failed"));
    for (const id of lost) {
      const report = (await statusOf(t, account, id)).body.data;
      expect(report.error).toEqual({
        code: "expired",
        message:
          "No delivery report came within 48 h of the submit to the carrier (MESSAGE_VALIDITY_HOURS); the carrier may still have delivered it.",
      });
    }
    // A carrier failure after submission is not refunded: 4 charged of 10.
    expect(await balanceOf(t, account)).toBe(6);
    const job = await call(t, "GET", `/api/v2/bulk-jobs/${bulk.body.data.job_id}`, { headers: keyOf(account) });
    expect(job.body.data.delivery_summary).toMatchObject({ total: 2, failed: 2, pending: 0 });
    await until(() => hooks.bodies().filter((b) => b.status === "failed").length === 3);
    for (const event of hooks.bodies().filter((b) => b.status === "failed")) {
      expect(lost).toContain(event.message_id);
      expect(event.error).toMatchObject({ code: "expired" });
      // Its send's broadcast, and the bulk job of the two bulk messages.
      const single = event.message_id === silent.body.data.message_id;
      expect(event.broadcast_id).toBe(single ? silent.body.data.broadcast_id : bulk.body.data.batch_id);
      expect(event.job_id).toBe(single ? undefined : bulk.body.data.job_id);
    }
    const metrics = await call(t, "GET", "/metrics");
    expect(metrics.text).toContain('switchboard_messages_failed_total{channel="sms",stage="expired"} 3');
  });

  it("leaves the messages of a connector that never reports delivery submitted", async () => {
    const t = gateway();
    const aggregator = await new FakeAggregator().start();
    try {
      const operator = await buildAccount(t, { role: "operator" });
      const admin = (method: string, path: string, json: unknown) =>
        call(t, method, `/admin/api${path}`, { headers: { authorization: `Bearer ${operator.apiKey}` }, json });
      // An aggregator configured without `dlr`: it takes messages and never calls back.
      const carrier = await admin("PUT", "/carriers/agg-quiet", {
        name: "agg-quiet",
        type: "http-sms",
        method: "GET",
        url: `${aggregator.url}/api/send?to={to}&text={text}`,
        auth: { type: "none" },
        response: { type: "json", id_path: "data.message_id" },
        timeout_ms: 2_000,
        max_connections: 2,
        rate_per_second: 100,
      });
      expect(carrier.status, carrier.text).toBe(201);
      expect(
        (await admin("PUT", "/routes", { route: "*", prefix: "", connectors: [{ name: "agg-quiet" }] })).status,
      ).toBe(201);
      await t.gateway.workers!.carriers.reload();
      const account = await buildAccount(t, { credits: { sms: 5 } });
      const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "quiet" });
      const id = sent.body.data.message_id;
      await until(async () => (await statusesOf(account, [id]))[0] === "submitted");

      clock.advance(72 * HOUR);
      expect(await expiryLook()).toBe(0);
      expect(await statusesOf(account, [id])).toEqual(["submitted"]);
    } finally {
      await aggregator.stop();
    }
  });
});
