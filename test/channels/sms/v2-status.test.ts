import { describe, expect, it } from "vitest";
import { addSenderId, setSenderIdStatus } from "../../../src/domain/accounts/index.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type JsonResponse, useTestGateway } from "../../helpers/gateway.js";
import { balanceOf, FAST_SIMULATOR, ISO_UTC, keyOf, sendSms, statusOf, waitForStatus } from "../../helpers/sms.js";

function expectNotFound(response: JsonResponse) {
  expect(response.status).toBe(404);
  expect(response.body).toMatchObject({ success: false, error: { code: "not_found", legacy_code: -15 } });
}

// The engines' suites run at the same time (the simulator's reports and a throttled submit's
// retry are waits), each on its own gateway.
describeEnginesTogether("v2 SMS status", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("finds a message by queue id, broadcast id and vendor id", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient: "+91 91234 56789", message: "find me" });
    expect(sent.status).toBe(200);
    const { message_id: id, broadcast_id: broadcastId } = sent.body.data;

    const byQueue = await statusOf(t, account, id);
    expect(byQueue.status).toBe(200);
    expect(byQueue.body).toMatchObject({ success: true, message: expect.any(String) });
    expect(byQueue.body.data).toMatchObject({ message_id: id, mobile: "9123456789", sender_id: "SWBRD", credit: 1 });
    expect(["queued", "submitted", "delivered"]).toContain(byQueue.body.data.status);

    const delivered = await waitForStatus(t, account, id);
    expect(delivered.status).toBe("delivered");
    expect(delivered.vendor_message_id).toEqual(expect.any(String));
    expect(delivered.vendor_message_id).not.toBe(id);

    const byBroadcast = await statusOf(t, account, broadcastId);
    expect(byBroadcast.status).toBe(200);
    expect(byBroadcast.body.success).toBe(true);
    expect(byBroadcast.body.data).toMatchObject({ broadcast_id: broadcastId, total: 1 });
    expect(byBroadcast.body.data.messages).toEqual([delivered]);

    const byVendor = await statusOf(t, account, delivered.vendor_message_id);
    expect(byVendor.status).toBe(200);
    expect(byVendor.body.data).toEqual(delivered);
  });

  it("answers 404 for another account's ids and for unknown ids", async () => {
    const t = gateway();
    const owner = await buildAccount(t);
    const stranger = await buildAccount(t);
    const sent = await sendSms(t, owner, { sender_id: "SWBRD", recipient: "9876543210", message: "mine" });
    const delivered = await waitForStatus(t, owner, sent.body.data.message_id);
    for (const id of [delivered.message_id, delivered.broadcast_id, delivered.vendor_message_id]) {
      expectNotFound(await statusOf(t, stranger, id));
      expect((await statusOf(t, owner, id)).status).toBe(200);
    }
    const unknown = [
      "q01ARZ3NDEKTSV4RRFFQ69G5FAV",
      `${owner.id}_20200101_000001`,
      "SIMDEADBEEF",
      "nope",
      "nope\u0000",
      `${owner.id}_20200101_\u0000`,
      "न",
    ];
    for (const id of unknown) expectNotFound(await statusOf(t, owner, id));
  });

  it("reads a queue id in either case, as GET /api/v2/messages/{id} does: status, report and cancel", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const stranger = await buildAccount(t);
    const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "any case" });
    const id: string = sent.body.data.message_id;
    for (const written of [id.toLowerCase(), `Q${id.slice(1).toLowerCase()}`]) {
      const status = await statusOf(t, account, written);
      expect(status.status, written).toBe(200);
      expect(status.body.data.message_id).toBe(id);
      const report = await call(t, "GET", `/api/v2/reports/${written}`, { headers: keyOf(account) });
      expect(report.status, written).toBe(200);
      expect(report.body.data.message_id).toBe(id);
      expectNotFound(await statusOf(t, stranger, written));
    }
    const later = await call(t, "POST", "/api/v2/sms/schedule", {
      headers: keyOf(account),
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "later", scheduled_at: "2099-01-01 10:00:00" },
    });
    expect(later.status).toBe(200);
    const laterId: string = later.body.data.message_id;
    const cancel = await call(t, "DELETE", `/api/v2/sms/schedule/${laterId.toLowerCase()}`, {
      headers: keyOf(account),
    });
    expect(cancel.status).toBe(200);
    expect(cancel.body.data).toMatchObject({ cancelled: 1, message_ids: [laterId] });
  });

  it("refunds a send the carrier rejects, but not one it fails after submission", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const send = (recipient: string) =>
      sendSms(t, account, { sender_id: "SWBRD", recipient, message: `to ${recipient}` });
    const rejected = await send("9876500002");
    const undelivered = await send("9876500001");
    const sentAt = Date.now();
    const throttled = await send("9876500003");
    for (const sent of [rejected, undelivered, throttled]) expect(sent.status).toBe(200);

    const [rejectedReport, undeliveredReport, throttledReport] = await Promise.all(
      [rejected, undelivered, throttled].map((sent) => waitForStatus(t, account, sent.body.data.message_id)),
    );
    const throttledAfterMs = Date.now() - sentAt;

    expect(rejectedReport).toMatchObject({ status: "failed", sent_time: null, delivery_time: null });
    expect(rejectedReport.error).toEqual({ code: expect.any(String), message: expect.any(String) });
    expect(undeliveredReport).toMatchObject({ status: "failed", delivery_time: null, error: { code: "UNDELIV" } });
    expect(undeliveredReport.sent_time).toMatch(ISO_UTC);
    expect(throttledReport.status).toBe("delivered");
    expect(throttledReport.error).toBeUndefined();
    // The simulator throttles the first submit; the dispatcher retries after 1 s ± 20 %.
    expect(throttledAfterMs).toBeGreaterThanOrEqual(800);

    expect(await balanceOf(t, account)).toBe(8);
    const entries = await t.db.store.db
      .selectFrom("ledger_entries")
      .select(["kind", "ref", "amount"])
      .where("account_id", "=", account.id)
      .where("kind", "in", ["debit", "refund"])
      .orderBy("kind")
      .orderBy("ref")
      .execute();
    expect(entries.map((e) => ({ kind: e.kind, ref: e.ref, amount: Number(e.amount) }))).toEqual([
      { kind: "debit", ref: rejected.body.data.broadcast_id, amount: -1000 },
      { kind: "debit", ref: undelivered.body.data.broadcast_id, amount: -1000 },
      { kind: "debit", ref: throttled.body.data.broadcast_id, amount: -1000 },
      { kind: "refund", ref: rejectedReport.message_id, amount: 1000 },
    ]);
  });

  // On the same gateway (other accounts: nothing of the tests above is read).
  describe("v2 balance and sender IDs", () => {
    it("answers the balance in the spec's shape and follows the ledger", async () => {
      const t = gateway();
      const account = await buildAccount(t, { credits: { sms: 12.5 } });
      const response = await call(t, "GET", "/api/v2/balance", { headers: keyOf(account) });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(["data", "message", "success"]);
      expect(response.body.success).toBe(true);
      // The spec's three fields, and `wallets` (issue 16): every wallet of the account.
      expect(Object.keys(response.body.data).sort()).toEqual(["balance", "currency", "last_updated", "wallets"]);
      expect(response.body.data).toMatchObject({ balance: 12.5, currency: "credits" });
      expect(response.body.data.last_updated).toMatch(ISO_UTC);

      await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "a".repeat(200) });
      expect(await balanceOf(t, account)).toBe(10.5);
    });

    it("lists the account's sender IDs with their status, filtered by status", async () => {
      const t = gateway();
      const account = await buildAccount(t);
      const other = await buildAccount(t, { sender: "OTHERS" });
      await addSenderId(t.db.store.db, t.clock, account.id, "PENDNG");
      const rejected = await addSenderId(t.db.store.db, t.clock, account.id, "REJCTD");
      await setSenderIdStatus(t.db.store.db, t.clock, rejected.id, "rejected");

      const all = await call(t, "GET", "/api/v2/sender-ids", { headers: keyOf(account) });
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ success: true, message: expect.any(String) });
      expect(all.body.data.map((s: { sender_id: string; status: string }) => [s.sender_id, s.status])).toEqual([
        ["SWBRD", "approved"],
        ["PENDNG", "pending"],
        ["REJCTD", "rejected"],
      ]);
      for (const item of all.body.data) expect(item.created_at).toMatch(ISO_UTC);

      for (const status of ["approved", "pending", "rejected"]) {
        const filtered = await call(t, "GET", `/api/v2/sender-ids?status=${status}`, { headers: keyOf(account) });
        expect(filtered.status).toBe(200);
        expect(filtered.body.data).toEqual(all.body.data.filter((s: { status: string }) => s.status === status));
      }
      const bad = await call(t, "GET", "/api/v2/sender-ids?status=bogus", { headers: keyOf(account) });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ success: false, error: { code: "invalid_request" } });

      const theirs = await call(t, "GET", "/api/v2/sender-ids", { headers: keyOf(other) });
      expect(theirs.body.data.map((s: { sender_id: string }) => s.sender_id)).toEqual(["OTHERS"]);
    });
  });
});
