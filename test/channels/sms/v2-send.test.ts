import { DateTime } from "luxon";
import { expect, it } from "vitest";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, useTestGateway } from "../../helpers/gateway.js";
import { balanceOf, FAST_SIMULATOR, ISO_UTC, sendSms, statusOf, waitForStatus } from "../../helpers/sms.js";

const ZONE = "Asia/Kolkata";

// The engines' suites run at the same time (a schedule's due time and the simulator's reports are
// waits), each on its own gateway.
describeEnginesTogether("v2 SMS send", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("answers the spec's queue entry, delivers, and charges one credit per segment", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const sentAt = Date.now();
    const sent = await sendSms(t, account, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Your OTP is 4321",
    });
    expect(sent.status).toBe(200);
    expect(Object.keys(sent.body).sort()).toEqual(["data", "message", "success"]);
    expect(sent.body.success).toBe(true);
    expect(sent.body.message).toEqual(expect.any(String));
    const data = sent.body.data;
    // The spec's four fields, plus the two extras the project documents (broadcast id and price).
    expect(Object.keys(data).sort()).toEqual([
      "broadcast_id",
      "credits",
      "estimated_delivery",
      "message_id",
      "queue_id",
      "status",
    ]);
    expect(data.message_id).toMatch(/^q[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(data.queue_id).toBe(data.message_id);
    expect(data.status).toBe("queued");
    expect(data.estimated_delivery).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(data.estimated_delivery)).toBeGreaterThanOrEqual(Math.floor(sentAt / 1000) * 1000);
    expect(Date.parse(data.estimated_delivery)).toBeLessThan(sentAt + 60_000);
    expect(data.credits).toBe(1);
    expect(await balanceOf(t, account)).toBe(9);

    const report = await waitForStatus(t, account, data.message_id);
    expect(report).toMatchObject({
      message_id: data.message_id,
      mobile: "9876543210",
      status: "delivered",
      sender_id: "SWBRD",
      credit: 1,
      route: "transactional",
    });
    expect(report.sent_time).toMatch(ISO_UTC);
    expect(report.delivery_time).toMatch(ISO_UTC);
    expect(Date.parse(report.delivery_time)).toBeGreaterThanOrEqual(Date.parse(report.sent_time));
    expect(report.error).toBeUndefined();
    expect(await balanceOf(t, account)).toBe(9);
  });

  it("accepts the recipient written +91…, 91…, 0… or with spaces and reports the 10 digits", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const written = [
      "+919876543210",
      "919876543210",
      "09876543210",
      "98765 43210",
      "+91 98765 43210",
      "+91-98765-43210",
    ];
    for (const recipient of written) {
      const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient, message: "format check" });
      expect(sent.status, recipient).toBe(200);
      const status = await statusOf(t, account, sent.body.data.message_id);
      expect(status.body.data.mobile, recipient).toBe("9876543210");
    }
    expect(await balanceOf(t, account)).toBe(10 - written.length);
  });

  it("prices GSM-7 and UCS-2 texts per segment and refuses non-GSM text without unicode", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 20 } });
    const send = (message: string, extra: Record<string, unknown> = {}) =>
      sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message, ...extra });

    const oneGsm = await send("a".repeat(160));
    const twoGsm = await send("a".repeat(161));
    const oneUcs = await send("न".repeat(70), { unicode: true });
    const twoUcs = await send("न".repeat(71), { unicode: true });
    const forced = await send("plain text", { unicode: true });
    const expected: Array<[typeof oneGsm, number, string]> = [
      [oneGsm, 1, "gsm7"],
      [twoGsm, 2, "gsm7"],
      [oneUcs, 1, "ucs2"],
      [twoUcs, 2, "ucs2"],
      [forced, 1, "ucs2"],
    ];
    for (const [sent, credits, encoding] of expected) {
      expect(sent.status).toBe(200);
      expect(sent.body.data.credits).toBe(credits);
      const report = (await statusOf(t, account, sent.body.data.message_id)).body.data;
      expect(report).toMatchObject({ credit: credits, segments: credits, encoding });
    }
    expect(await balanceOf(t, account)).toBe(20 - 7);

    const refused = await send("नमस्ते दुनिया");
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      success: false,
      error: { code: "unicode_not_allowed", legacy_code: -40 },
    });
    expect(await balanceOf(t, account)).toBe(13);
  });

  it("accepts flash and promotional sends and stores them as asked", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    // Promotional from its own sender ID needs promo sender (decision 0183).
    await t.db.store.db.updateTable("accounts").set({ promo_sender_enabled: 1 }).where("id", "=", account.id).execute();
    const flash = await sendSms(t, account, {
      sender_id: "swbrd",
      recipient: "9876543210",
      message: "flash!",
      flash: true,
      route: "promotional",
    });
    expect(flash.status).toBe(200);
    const id = flash.body.data.message_id;
    const row = await t.db.store.db
      .selectFrom("messages")
      .select(["flash", "route", "sender"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ flash: 1, route: "promotional", sender: "SWBRD" });
    const report = await waitForStatus(t, account, id);
    expect(report).toMatchObject({ status: "delivered", route: "promotional", sender_id: "SWBRD" });
  });

  it("holds a send scheduled a few seconds ahead (account zone) and sends it when due", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const due = DateTime.now().setZone(ZONE).plus({ seconds: 3 }).startOf("second");
    const sent = await sendSms(t, account, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "later",
      schedule_at: due.toFormat("yyyy-MM-dd HH:mm:ss"),
    });
    expect(sent.status).toBe(200);
    expect(sent.body.data.status).toBe("queued");
    expect(Date.parse(sent.body.data.estimated_delivery)).toBeGreaterThanOrEqual(due.toMillis());
    expect(await balanceOf(t, account)).toBe(9);

    const id = sent.body.data.message_id;
    const before = (await statusOf(t, account, id)).body.data;
    expect(before.status).toBe("scheduled");
    expect(before.scheduled_at).toBe(due.toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'"));
    expect(before.sent_time).toBeNull();

    const report = await waitForStatus(t, account, id, { timeoutMs: 10_000 });
    expect(report.status).toBe("delivered");
    expect(Date.parse(report.sent_time)).toBeGreaterThanOrEqual(due.toMillis());
  });

  it("sends at once when schedule_at is in the past", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const sentAt = Date.now();
    for (const past of [DateTime.now().setZone(ZONE).minus({ minutes: 5 }), DateTime.fromISO("2020-01-01T10:00:00")]) {
      const sent = await sendSms(t, account, {
        sender_id: "SWBRD",
        recipient: "9876543210",
        message: "overdue",
        schedule_at: past.toFormat("yyyy-MM-dd HH:mm:ss"),
      });
      expect(sent.status).toBe(200);
      expect(Date.parse(sent.body.data.estimated_delivery)).toBeGreaterThanOrEqual(Math.floor(sentAt / 1000) * 1000);
      const report = await waitForStatus(t, account, sent.body.data.message_id, { timeoutMs: 5_000 });
      expect(report.status).toBe("delivered");
      expect(report.scheduled_at).toBeUndefined();
    }
  });
});
