// The console's views of an account's messages on the v2 API, through the real server on
// both engines: today's and the last 7 days' traffic per channel, messages per minute, and
// one message with its timeline, cost, carrier id and webhook attempts. Another account's
// message is not found.
import { expect, it } from "vitest";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, ISO_UTC, keyOf, sendSms, waitForStatus } from "../../helpers/sms.js";
import { retryNow, suiteReceivers, until } from "../webhooks/receiver.js";

function get(t: TestGateway, account: TestAccount, path: string) {
  return call(t, "GET", `/api/v2${path}`, { headers: keyOf(account) });
}

async function send(t: TestGateway, account: TestAccount, recipient: string): Promise<string> {
  const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient, message: "Your code is 1234" });
  expect(sent.status, sent.text).toBe(200);
  return sent.body.data.message_id;
}

// The engines' suites run at the same time (a webhook's retry and the simulator's reports are
// waits), each with its own gateway and receivers.
describeEnginesTogether("message views (v2)", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });
  const receiver = suiteReceivers();

  it("counts today's and the last 7 days' messages per channel, in the account's days", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const delivered = await send(t, account, "9876543210");
    const failed = await send(t, account, "9876500001");
    const threeDaysAgo = await send(t, account, "9876543211");
    const tenDaysAgo = await send(t, account, "9876543212");
    for (const id of [delivered, failed, threeDaysAgo, tenDaysAgo]) await waitForStatus(t, account, id);
    const now = Date.now();
    const db = t.db.store.db;
    await db
      .updateTable("messages")
      .set({ created_at: now - 3 * 86_400_000 })
      .where("id", "=", threeDaysAgo)
      .execute();
    await db
      .updateTable("messages")
      .set({ created_at: now - 10 * 86_400_000 })
      .where("id", "=", tenDaysAgo)
      .execute();
    // Another account's traffic is not counted.
    const other = await buildAccount(t);
    await send(t, other, "9876543213");

    const summary = await get(t, account, "/messages/summary");
    expect(summary.status, summary.text).toBe(200);
    expect(summary.body.data.time_zone).toBe("Asia/Kolkata");
    expect(summary.body.data.today_from).toMatch(ISO_UTC);
    // Midnight in Kolkata is 18:30 UTC.
    expect(summary.body.data.today_from).toMatch(/T18:30:00Z$/);
    expect(summary.body.data.channels.sms).toEqual({
      today: { sent: 2, delivered: 1, failed: 1 },
      last_7_days: { sent: 3, delivered: 2, failed: 1 },
    });
    for (const channel of ["whatsapp", "email", "voice"]) {
      expect(summary.body.data.channels[channel]).toEqual({
        today: { sent: 0, delivered: 0, failed: 0 },
        last_7_days: { sent: 0, delivered: 0, failed: 0 },
      });
    }

    const perMinute = await get(t, account, "/messages/per-minute?hours=24");
    expect(perMinute.status, perMinute.text).toBe(200);
    const { from, to, minutes } = perMinute.body.data;
    expect(Date.parse(to) - Date.parse(from)).toBe(24 * 3_600_000);
    expect(Date.parse(to) % 60_000).toBe(0);
    const sum = (field: string) => minutes.reduce((n: number, m: Record<string, number>) => n + m[field]!, 0);
    expect({ sent: sum("sent"), delivered: sum("delivered"), failed: sum("failed") }).toEqual({
      sent: 2,
      delivered: 1,
      failed: 1,
    });
    for (const minute of minutes) expect(Date.parse(minute.at) % 60_000).toBe(0);

    const oneHour = await get(t, account, "/messages/per-minute?hours=1");
    expect(oneHour.body.data.minutes.reduce((n: number, m: { sent: number }) => n + m.sent, 0)).toBe(2);
    for (const hours of ["0", "25", "x", "1.5"]) {
      const bad = await get(t, account, `/messages/per-minute?hours=${hours}`);
      expect(bad.status, hours).toBe(400);
      expect(bad.body.error).toMatchObject({ code: "invalid_request", field: "hours" });
    }
    const unknown = await get(t, account, "/messages/per-minute?hourz=2");
    expect(unknown.status).toBe(400);
  });

  it("tells one message's timeline, cost, carrier id and webhook attempts", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const hooks = await receiver();
    hooks.answer = (_request, index) => (index === 0 ? 500 : 200);
    const set = await call(t, "PUT", "/api/v2/webhooks", {
      headers: keyOf(account),
      json: { delivery_report: hooks.url },
    });
    expect(set.status, set.text).toBe(200);

    const id = await send(t, account, "9876543210");
    await waitForStatus(t, account, id);
    // submitted and delivered reports; the first POST answered 500 and is retried, its back-off
    // (5 s) brought forward: the attempts are under test here, not their schedule.
    await retryNow(t.db.store, hooks.url);
    await until(() => hooks.received.length >= 2, 20_000);

    const detail = await get(t, account, `/messages/${id}`);
    expect(detail.status, detail.text).toBe(200);
    const data = detail.body.data;
    expect(data.message).toMatchObject({ message_id: id, status: "delivered", mobile: "9876543210", channel: "sms" });
    expect(data.cost).toEqual({ credits: 1, wallet: "sms", refunded: false });
    expect(data.carrier.connector).toBe("simulator");
    expect(data.carrier.vendor_message_id).toBe(data.message.vendor_message_id);
    expect(data.carrier.vendor_message_id).toBeTruthy();
    const events = data.timeline.map((e: { event: string }) => e.event);
    // The submitted report's webhook may be attempted before the receipt arrives: the
    // message's own events keep their order whatever falls between them.
    expect(events.filter((e: string) => e !== "webhook")).toEqual(["accepted", "submitted", "delivered"]);
    expect(events).toContain("webhook");
    for (const event of data.timeline) expect(event.at).toMatch(ISO_UTC);
    expect(data.timeline.find((e: { event: string }) => e.event === "submitted").detail).toContain("to simulator");
    expect(data.webhooks.length).toBeGreaterThanOrEqual(1);
    const first = data.webhooks[0];
    expect(first).toMatchObject({ event: "delivery_report", url: hooks.url });
    expect(first.payload).toMatchObject({ message_id: id });
    expect(first.attempts_log[0]).toMatchObject({ attempt: 1, status_code: 500 });
    const webhookEvent = data.timeline.find((e: { event: string }) => e.event === "webhook");
    expect(webhookEvent.detail).toMatch(/^delivery_report \((submitted|delivered)\) attempt 1: (500|200) in \d+ ms/);

    // Lower-case ids are the same message, as on the status call.
    expect((await get(t, account, `/messages/q${id.slice(1).toLowerCase()}`)).status).toBe(200);
  });

  it("lists a message's parts with their receipts, in order, in its timeline", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const id = await send(t, account, "9876543210");
    await waitForStatus(t, account, id);
    const submittedAt = Number(
      (await t.db.store.db.selectFrom("messages").select("submitted_at").where("id", "=", id).executeTakeFirstOrThrow())
        .submitted_at,
    );
    // As an SMPP carrier stores them (carriers/smpp/stored-parts.ts), written out of order.
    const part = (index: number, status: "delivered" | "failed", error: string | null) => ({
      message_id: id,
      part_index: index,
      connector: "smsc",
      upstream_id: `up-${index}`,
      status,
      error_code: error,
      done_at: submittedAt + 10 + index,
      created_at: submittedAt,
    });
    await t.db.store.db
      .insertInto("message_parts")
      .values([part(1, "failed", "UNDELIV/034"), part(0, "delivered", null)])
      .execute();

    const data = (await get(t, account, `/messages/${id}`)).body.data;
    expect(data.parts).toEqual([
      {
        part: 1,
        status: "delivered",
        vendor_message_id: "up-0",
        error_code: null,
        done_at: expect.stringMatching(ISO_UTC),
      },
      {
        part: 2,
        status: "failed",
        vendor_message_id: "up-1",
        error_code: "UNDELIV/034",
        done_at: expect.stringMatching(ISO_UTC),
      },
    ]);
    const partEvents = data.timeline.filter((e: { event: string }) => e.event.startsWith("part "));
    expect(partEvents.map((e: { event: string; detail: string }) => [e.event, e.detail])).toEqual([
      ["part 1 of 2 delivered", "carrier's id up-0"],
      ["part 2 of 2 failed", "carrier's id up-1 (UNDELIV/034)"],
    ]);
  });

  it("tells why a message failed and that a refused submit was refunded", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const undelivered = await send(t, account, "9876500001");
    const rejected = await send(t, account, "9876500002");
    await waitForStatus(t, account, undelivered);
    await waitForStatus(t, account, rejected);

    const failed = (await get(t, account, `/messages/${undelivered}`)).body.data;
    const last = failed.timeline.at(-1);
    expect(last.event).toBe("failed");
    expect(last.detail).toMatch(/^UNDELIV: /);
    expect(failed.cost.refunded).toBe(false);
    expect(failed.message.error.code).toBe("UNDELIV");

    const refused = (await get(t, account, `/messages/${rejected}`)).body.data;
    expect(refused.cost).toEqual({ credits: 1, wallet: "sms", refunded: true });
    expect(refused.timeline.map((e: { event: string }) => e.event)).toEqual(["accepted", "failed", "refunded"]);
    expect(refused.carrier.vendor_message_id).toBeNull();
  });

  it("answers another account's message, an unknown id and a broadcast id with not found", async () => {
    const t = gateway();
    const owner = await buildAccount(t);
    const stranger = await buildAccount(t);
    const id = await send(t, owner, "9876543210");
    const sent = await get(t, owner, `/messages/${id}`);
    for (const path of [`/messages/${id}`, "/messages/q01M81622NET1B1XB4AS15D2RM4", "/messages/not-an-id"]) {
      const answer = await get(t, stranger, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body).toMatchObject({ status: "error", error: { code: "not_found" } });
    }
    const broadcast = await get(t, owner, `/messages/${sent.body.data.message.broadcast_id}`);
    expect(broadcast.status).toBe(404);
    // The summary and the chart of the stranger see nothing of the owner's traffic.
    const summary = await get(t, stranger, "/messages/summary");
    expect(summary.body.data.channels.sms.today.sent).toBe(0);
    const noKey = await call(t, "GET", `/api/v2/messages/${id}`);
    expect(noKey.status).toBe(401);
  });
});
