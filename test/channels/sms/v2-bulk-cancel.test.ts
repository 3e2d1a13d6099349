// POST /api/v2/bulk-jobs/{id}/cancel: what a job has not queued for a carrier yet (recipients the
// expander has not turned into messages, due or not, and scheduled messages) is cancelled and
// refunded in one transaction; what is queued or final is left alone. The gateway runs without a
// worker, so nothing is expanded or sent behind the test's back.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { balanceOf, keyOf } from "../../helpers/sms.js";

function numbers(count: number, start = 9_200_000_000): string[] {
  return Array.from({ length: count }, (_, i) => String(start + i * 10 + 7));
}

async function startJob(t: TestGateway, account: TestAccount, extra: Record<string, unknown> = {}) {
  const sent = await call(t, "POST", "/api/v2/sms/bulk", {
    headers: keyOf(account),
    json: { sender_id: "SWBRD", message: "Stock take tonight", recipients: numbers(5), ...extra },
  });
  expect(sent.status, sent.text).toBe(200);
  return sent.body.data as { job_id: number; batch_id: string };
}

const cancel = (t: TestGateway, account: TestAccount, id: number | string) =>
  call(t, "POST", `/api/v2/bulk-jobs/${id}/cancel`, { headers: keyOf(account) });

describeEachEngine("v2 bulk job cancel", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });

  it("cancels and refunds a job's unsent recipients, then has nothing left to cancel", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 20 } });
    const job = await startJob(t, account);
    expect(await balanceOf(t, account)).toBe(15);
    const before = await call(t, "GET", `/api/v2/bulk-jobs/${job.job_id}`, { headers: keyOf(account) });
    expect(before.body.data.pending_stages).toEqual({ not_queued: 5, scheduled: 0, queued: 0, submitted: 0 });

    const cancelled = await cancel(t, account, job.job_id);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data).toMatchObject({
      cancelled: 5,
      credits_refunded: 5,
      job: { id: job.job_id, status: "completed" },
      delivery_summary: { total: 5, cancelled: 5, pending: 0, delivered: 0, failed: 0 },
    });
    expect(await balanceOf(t, account)).toBe(20);
    // Completed without starting: none of its messages reached a carrier.
    const after = await call(t, "GET", `/api/v2/bulk-jobs/${job.job_id}`, { headers: keyOf(account) });
    expect(after.body.data.job).toMatchObject({ status: "completed", started_at: null });
    expect(after.body.data.job.completed_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const again = await cancel(t, account, job.job_id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
    // The expander never turns a cancelled part into messages.
    const rows = await t.db.store.db.selectFrom("messages").select("id").where("job_id", "=", job.job_id).execute();
    expect(rows).toEqual([]);
  });

  it("cancels a scheduled job's messages too", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 20 } });
    const job = await startJob(t, account, { schedule_at: "2099-01-01 10:00:00" });
    const cancelled = await cancel(t, account, job.job_id);
    expect(cancelled.body.data).toMatchObject({ cancelled: 5, credits_refunded: 5 });
    expect(await balanceOf(t, account)).toBe(20);
  });

  it("answers not found for another account's job, an unknown one and an id that is not one", async () => {
    const t = gateway();
    const owner = await buildAccount(t, { credits: { sms: 20 } });
    const other = await buildAccount(t, { credits: { sms: 20 } });
    const job = await startJob(t, owner);
    for (const id of [String(job.job_id), "999999", "abc"]) {
      const refused = await cancel(t, other, id);
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe("not_found");
    }
    expect(await balanceOf(t, owner)).toBe(15);
  });
});
