import { DateTime } from "luxon";
import { expect, it } from "vitest";
import { createLogger, startGateway } from "../../../src/app/gateway.js";
import { ManualClock } from "../../../src/base/core/clock.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import {
  buildAccount,
  call,
  type TestAccount,
  type TestGateway,
  testConfig,
  useTestGateway,
} from "../../helpers/gateway.js";
import { balanceOf, FAST_SIMULATOR, keyOf, statusOf, waitForStatus } from "../../helpers/sms.js";

const ZONE = "Asia/Kolkata";

function local(ms: number): string {
  return DateTime.fromMillis(ms, { zone: ZONE }).toFormat("yyyy-MM-dd HH:mm:ss");
}

function schedule(t: TestGateway, account: TestAccount, body: unknown) {
  return call(t, "POST", "/api/v2/sms/schedule", { headers: keyOf(account), json: body });
}

function cancel(t: TestGateway, account: TestAccount, id: string) {
  return call(t, "DELETE", `/api/v2/sms/schedule/${encodeURIComponent(id)}`, { headers: keyOf(account) });
}

// The engines' suites run at the same time (a schedule's due time is waited for), each on its
// own gateway (and clock, after the restart).
describeEnginesTogether("v2 scheduled send and the GET variant of send", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });
  const base = { sender_id: "SWBRD", recipient: "9876543210", message: "Reminder: meeting at 5" };

  it("reads scheduled_at in the account's zone, holds the message, and releases it on time", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    // Whole seconds: the field has no fraction. At least 4 s ahead: on a loaded machine the
    // account's set-up and the send itself can take seconds, and a due time reached before the
    // send is read is refused as past (a failure seen at load 11-17 with 1.5 s).
    const due = Math.ceil((Date.now() + 4000) / 1000) * 1000;
    const sent = await schedule(t, account, { ...base, scheduled_at: local(due) });
    expect(sent.status).toBe(200);
    expect(sent.body.success).toBe(true);
    // Accepted as every queue entry is (the spec: "queued is the status on acceptance"); held as scheduled.
    expect(sent.body.data).toMatchObject({ status: "queued", credits: 1 });
    expect(Date.parse(sent.body.data.scheduled_at)).toBe(due);
    expect(await balanceOf(t, account)).toBe(9);
    const id = sent.body.data.message_id;
    expect((await statusOf(t, account, id)).body.data.status).toBe("scheduled");
    const row = await t.db.store.db
      .selectFrom("messages")
      .select("due_at")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.due_at).toBe(due);

    const report = await waitForStatus(t, account, id, { timeoutMs: 20_000 });
    expect(report.status).toBe("delivered");
    expect(Date.parse(report.sent_time)).toBeGreaterThanOrEqual(due - 1000);
    const submitted = await t.db.store.db
      .selectFrom("messages")
      .select("submitted_at")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(submitted.submitted_at!).toBeGreaterThanOrEqual(due);
    // Housekeeping runs every second: released at its first tick after the due time (a few
    // seconds at most on a loaded machine; a release that waited for anything else takes longer).
    expect(submitted.submitted_at! - due).toBeLessThan(5000);
  });

  it("refuses a missing, malformed or past scheduled_at", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const cases: [unknown, number, string][] = [
      [{ ...base }, 400, "invalid_schedule"],
      [{ ...base, scheduled_at: "" }, 400, "invalid_schedule"],
      [{ ...base, scheduled_at: "2026-13-01 10:00:00" }, 400, "invalid_schedule"],
      [{ ...base, scheduled_at: "tomorrow at noon" }, 400, "invalid_schedule"],
      [{ ...base, scheduled_at: local(Date.now() - 5 * 60_000) }, 400, "invalid_schedule"],
      [{ ...base, schedule_at: local(Date.now() + 60_000) }, 400, "invalid_request"],
      [{ ...base, scheduled_at: 12345 }, 400, "invalid_request"],
      [{ ...base, recipient: "123", scheduled_at: local(Date.now() + 60_000) }, 422, "invalid_recipient"],
    ];
    for (const [body, status, code] of cases) {
      const answer = await schedule(t, account, body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.success).toBe(false);
      expect(answer.body.error.code, JSON.stringify(body)).toBe(code);
    }
    // Up to a minute in the past is "now" (clock skew), not an error.
    const recent = await schedule(t, account, { ...base, scheduled_at: local(Date.now() - 20_000) });
    expect(recent.status).toBe(200);
    expect(await balanceOf(t, account)).toBe(9);
  });

  it("cancels a scheduled message with a refund until it is released, then refuses", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const sent = await schedule(t, account, { ...base, scheduled_at: local(Date.now() + 3_600_000) });
    const id = sent.body.data.message_id;
    expect(await balanceOf(t, account)).toBe(9);
    const other = await buildAccount(t);
    expect((await cancel(t, other, id)).status).toBe(404);
    expect((await cancel(t, account, "q01JD4Z8N6T6Q5W4K3Y8C2H7M9A")).status).toBe(404);
    expect((await cancel(t, account, "nonsense")).status).toBe(404);

    const cancelled = await cancel(t, account, id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      success: true,
      data: { cancelled: 1, refunded_credits: 1, message_ids: [id] },
    });
    expect(await balanceOf(t, account)).toBe(10);
    expect((await statusOf(t, account, id)).body.data.status).toBe("cancelled");
    const again = await cancel(t, account, id);
    expect(again.status).toBe(409);
    expect(await balanceOf(t, account)).toBe(10);

    // A message already released cannot be cancelled.
    const now = await schedule(t, account, { ...base, scheduled_at: local(Date.now()) });
    await waitForStatus(t, account, now.body.data.message_id);
    expect((await cancel(t, account, now.body.data.message_id)).status).toBe(409);
    expect(await balanceOf(t, account)).toBe(9);
  });

  it("cancels a scheduled bulk job by its batch id and the job's summary counts the cancellations", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const sent = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: keyOf(account),
      json: {
        sender_id: "SWBRD",
        message: "Later",
        recipients: ["9876543210", "9876543211", "9876543212"],
        schedule_at: local(Date.now() + 3_600_000),
      },
    });
    expect(sent.status).toBe(200);
    expect(sent.body.data.scheduled_at).toEqual(expect.any(String));
    expect(await balanceOf(t, account)).toBe(7);
    const cancelled = await cancel(t, account, sent.body.data.batch_id);
    expect(cancelled.body.data.cancelled).toBe(3);
    expect(await balanceOf(t, account)).toBe(10);
    const job = await call(t, "GET", `/api/v2/bulk-jobs/${sent.body.data.job_id}`, { headers: keyOf(account) });
    expect(job.body.data.job.status).toBe("completed");
    expect(job.body.data.delivery_summary).toEqual({ total: 3, delivered: 0, failed: 0, cancelled: 3, pending: 0 });
  });

  it("serves the GET variant of send only when GET access is enabled for the account", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const query = new URLSearchParams({ ...base, api_key: account.apiKey });
    const refused = await call(t, "GET", `/api/v2/sms/send?${query}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, error: { code: "forbidden" } });
    expect(await balanceOf(t, account)).toBe(10);

    await t.db.store.db.updateTable("accounts").set({ get_api_enabled: 1 }).where("id", "=", account.id).execute();
    const sent = await call(t, "GET", `/api/v2/sms/send?${query}`);
    expect(sent.status).toBe(200);
    expect(sent.body.data.status).toBe("queued");
    expect((await waitForStatus(t, account, sent.body.data.message_id)).status).toBe("delivered");
    const withHeader = await call(t, "GET", `/api/v2/sms/send?${new URLSearchParams({ ...base, flash: "true" })}`, {
      headers: keyOf(account),
    });
    expect(withHeader.status).toBe(200);
    const badFlag = await call(t, "GET", `/api/v2/sms/send?${new URLSearchParams({ ...base, unicode: "maybe" })}`, {
      headers: keyOf(account),
    });
    expect(badFlag.status).toBe(400);
    const missing = await call(t, "GET", `/api/v2/sms/send?${new URLSearchParams({ sender_id: "SWBRD" })}`, {
      headers: keyOf(account),
    });
    // No recipient and no message: the recipient first, as the legacy table orders -5 before -6.
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("invalid_recipient");
    // Unknown parameters (cache busters, tracking tags) are ignored, as GET clients expect.
    const extra = await call(t, "GET", `/api/v2/sms/send?${new URLSearchParams({ ...base, _: "123" })}`, {
      headers: keyOf(account),
    });
    expect(extra.status).toBe(200);
    expect(await balanceOf(t, account)).toBe(7);
  });
});

describeEnginesTogether("scheduled messages survive a restart", (engine) => {
  it("releases messages that fell due while the gateway was down", async () => {
    const clock = new ManualClock("2026-11-22T06:30:00Z");
    const first = await import("../../helpers/gateway.js").then((m) =>
      m.startTestGateway(engine, { clock, env: FAST_SIMULATOR }),
    );
    try {
      const account = await buildAccount(first, { credits: { sms: 10 } });
      const due = clock.now().getTime() + 3_600_000;
      const sent = await schedule(first, account, { ...base(), scheduled_at: local(due) });
      expect(sent.status).toBe(200);
      await first.gateway.stop();

      clock.advance(2 * 3_600_000);
      const second = await startGateway({
        config: testConfig(first.db, FAST_SIMULATOR),
        roles: ["api", "worker"],
        clock,
        store: first.db.store,
        logger: createLogger({ logLevel: "silent" }),
        // As the first (startTestGateway): no OpenAPI document built that nobody reads.
        openApiAtStart: false,
      });
      try {
        const t = { ...first, gateway: second, url: second.url ?? "" };
        const ticker = setInterval(() => clock.advance(200), 20);
        try {
          const report = await waitForStatus(t, account, sent.body.data.message_id, { timeoutMs: 15_000 });
          expect(report.status).toBe("delivered");
        } finally {
          clearInterval(ticker);
        }
      } finally {
        await second.stop();
      }
    } finally {
      await first.db.drop();
    }
  });

  function base() {
    return { sender_id: "SWBRD", recipient: "9876543210", message: "Reminder" };
  }
});
