import { expect, it } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { addDnd } from "../../../src/domain/accounts/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { waitUntilAllFinal } from "../../helpers/messages.js";
import { balanceOf, FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";

function bulk(t: TestGateway, account: TestAccount, body: unknown, headers: Record<string, string> = {}) {
  return call(t, "POST", "/api/v2/sms/bulk", { headers: { ...keyOf(account), ...headers }, json: body });
}

function jobOf(t: TestGateway, account: TestAccount, id: number | string) {
  return call(t, "GET", `/api/v2/bulk-jobs/${id}`, { headers: keyOf(account) });
}

/** The job's summary recounted from the messages themselves. */
async function recount(t: TestGateway, jobId: number) {
  const rows = await t.db.store.db.selectFrom("messages").select(["status"]).where("job_id", "=", jobId).execute();
  const count = (s: string) => rows.filter((r) => r.status === s).length;
  return {
    total: rows.length,
    delivered: count("delivered"),
    failed: count("failed"),
    cancelled: count("cancelled"),
    pending: rows.length - count("delivered") - count("failed") - count("cancelled"),
  };
}

function numbers(count: number, start = 9_100_000_000): string[] {
  return Array.from({ length: count }, (_, i) => String(start + i * 10 + 5));
}

// The engines' suites run at the same time (jobs' expansion, dispatch and reports are waits), each
// on its own gateway.
describeEnginesTogether("v2 bulk send and bulk jobs", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("previews a bulk call: what it would send, refuse and charge, sending and charging nothing", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    await addDnd(t.db.store, { clock: t.clock, actor: cliActor() }, ["9811111111"]);
    const body = {
      sender_id: "PROMOTIONAL",
      route: "promotional",
      message: "y".repeat(161),
      recipients: ["9876543210", "12345", "9811111111", "+91 98765 43210", "9876500001"],
    };
    const preview = await call(t, "POST", "/api/v2/sms/bulk/preview", { headers: keyOf(account), json: body });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data).toMatchObject({
      total: 5,
      accepted: 2,
      rejected_count: 3,
      segments_per_message: 2,
      segments: 4,
      credits: 4,
      wallet: "sms",
      balance: 100,
    });
    expect(preview.body.data.rejected.map((r: { error: { code: string } }) => r.error.code)).toEqual([
      "invalid_recipient",
      "dnd_blocked",
      "duplicate_recipient",
    ]);
    expect(await balanceOf(t, account)).toBe(100);
    expect(await t.db.store.db.selectFrom("messages").select("id").execute()).toEqual([]);
    expect(await t.db.store.db.selectFrom("bulk_jobs").select("id").execute()).toEqual([]);
    // The call itself then charges what the preview said.
    const sent = await bulk(t, account, body);
    expect(sent.body.data).toMatchObject({ accepted: 2, credits: 4 });
    // Refused as the bulk call would be: neither recipients nor a group, a group of another account.
    const neither = await call(t, "POST", "/api/v2/sms/bulk/preview", {
      headers: keyOf(account),
      json: { sender_id: "PROMOTIONAL", message: "Hi" },
    });
    expect(neither.status).toBe(400);
    expect(neither.body).toMatchObject({ success: false, error: { code: "invalid_request", field: "recipients" } });
    expect(neither.body.message).toBe("Give recipients (an array of numbers) or group_id: the request has neither.");
    const both = await call(t, "POST", "/api/v2/sms/bulk/preview", {
      headers: keyOf(account),
      json: { sender_id: "PROMOTIONAL", message: "Hi", recipients: ["9876543210"], group_id: 1 },
    });
    expect(both.body.message).toBe("Give recipients (an array of numbers) or group_id, not both.");
    const group = await call(t, "POST", "/api/v2/sms/bulk/preview", {
      headers: keyOf(account),
      json: { sender_id: "PROMOTIONAL", message: "Hi", group_id: 999 },
    });
    expect(group.status).toBe(404);
  });

  it("accepts a job, refuses bad, DND and repeated numbers one by one, and charges only what it stores", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    await addDnd(t.db.store, { clock: t.clock, actor: cliActor() }, ["9811111111"]);
    const sent = await bulk(t, account, {
      sender_id: "PROMOTIONAL",
      route: "promotional",
      message: "Sale starts today",
      recipients: ["9876543210", "12345", "9811111111", "+91 98765 43210", "9876500001", "9876500002"],
    });
    expect(sent.status).toBe(200);
    expect(sent.body.success).toBe(true);
    const data = sent.body.data;
    expect(data).toMatchObject({ total: 6, accepted: 3, rejected_count: 3, status: "queued", credits: 3 });
    expect(data.job_id).toEqual(expect.any(Number));
    expect(data.batch_id).toMatch(/^\d+_\d{8}_\d+$/);
    expect(data.rejected).toEqual([
      { recipient: "12345", error: expect.objectContaining({ code: "invalid_recipient", legacy_code: -5 }) },
      { recipient: "9811111111", error: expect.objectContaining({ code: "dnd_blocked", legacy_code: -11 }) },
      { recipient: "9876543210", error: expect.objectContaining({ code: "duplicate_recipient" }) },
    ]);

    await waitUntilAllFinal(t.db.store);
    const job = await jobOf(t, account, data.job_id);
    expect(job.status).toBe(200);
    expect(job.body.status).toBe("success");
    expect(job.body.data.job).toMatchObject({
      id: data.job_id,
      batch_id: data.batch_id,
      status: "completed",
      total: 3,
      rejected: 3,
      route: "promotional",
    });
    // ...0001 fails at the carrier (charged), ...0002 is rejected before it (refunded).
    expect(job.body.data.delivery_summary).toEqual({ total: 3, delivered: 1, failed: 2, cancelled: 0, pending: 0 });
    expect(job.body.data.delivery_summary).toEqual(await recount(t, data.job_id));
    expect(await balanceOf(t, account)).toBe(98);
  });

  it("moves a job queued -> processing -> completed with a summary that matches its messages at every look", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 1000 } });
    // ...0003 is throttled once by the carrier, so the job stays open about a second.
    const recipients = [...numbers(200), "9876500003"];
    const sent = await bulk(t, account, { sender_id: "SWBRD", message: "Your order shipped", recipients });
    expect(sent.status).toBe(200);
    const jobId = sent.body.data.job_id;
    const seen = new Set<string>();
    const deadline = Date.now() + 20_000;
    for (;;) {
      const job = await jobOf(t, account, jobId);
      const { status } = job.body.data.job;
      seen.add(status);
      const summary = job.body.data.delivery_summary;
      expect(summary.total).toBe(201);
      expect(summary.delivered + summary.failed + summary.cancelled + summary.pending).toBe(201);
      if (status === "completed") {
        expect(summary).toEqual(await recount(t, jobId));
        expect(summary.pending).toBe(0);
        expect(job.body.data.job.started_at).not.toBeNull();
        expect(job.body.data.job.completed_at).not.toBeNull();
        break;
      }
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(seen.has("processing")).toBe(true);
  });

  it("extends a job with job_id: one batch id, one summary, each part charged once", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 1000 } });
    const first = await bulk(t, account, { sender_id: "SWBRD", message: "Part", recipients: numbers(50) });
    expect(first.status).toBe(200);
    const jobId = first.body.data.job_id;
    const second = await bulk(t, account, {
      sender_id: "SWBRD",
      message: "Part",
      recipients: numbers(30, 9_200_000_000),
      job_id: jobId,
    });
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ job_id: jobId, batch_id: first.body.data.batch_id, accepted: 30 });
    expect(await balanceOf(t, account)).toBe(920);

    const other = await buildAccount(t);
    const foreign = await bulk(t, other, { sender_id: "SWBRD", message: "x", recipients: numbers(1), job_id: jobId });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");

    await waitUntilAllFinal(t.db.store);
    const job = await jobOf(t, account, jobId);
    expect(job.body.data.job.status).toBe("completed");
    expect(job.body.data.delivery_summary).toEqual({ total: 80, delivered: 80, failed: 0, cancelled: 0, pending: 0 });
    const closed = await bulk(t, account, { sender_id: "SWBRD", message: "x", recipients: numbers(1), job_id: jobId });
    expect(closed.status).toBe(409);
    expect(closed.body.error.code).toBe("conflict");
    expect(await balanceOf(t, account)).toBe(920);
  });

  it("sends to a contact group", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const now = Date.now();
    const group = await t.db.store.db
      .insertInto("contact_groups")
      .values({ account_id: account.id, name: "vip", description: null, created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    await t.db.store.db
      .insertInto("contacts")
      .values(numbers(12).map((number) => ({ group_id: group.id, number, name: null, created_at: now })))
      .execute();
    const sent = await bulk(t, account, { sender_id: "SWBRD", message: "Hello VIP", group_id: group.id });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ total: 12, accepted: 12, rejected: [] });
    const job = await jobOf(t, account, sent.body.data.job_id);
    expect(job.body.data.job.group_id).toBe(group.id);

    const other = await buildAccount(t);
    const foreign = await bulk(t, other, { sender_id: "SWBRD", message: "x", group_id: group.id });
    expect(foreign.status).toBe(404);
    const emptyGroup = await t.db.store.db
      .insertInto("contact_groups")
      .values({ account_id: account.id, name: "empty", description: null, created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    const empty = await bulk(t, account, { sender_id: "SWBRD", message: "x", group_id: emptyGroup.id });
    expect(empty.status).toBe(422);
    expect(empty.body.error.code).toBe("invalid_recipient");
  });

  it("refuses bad requests whole, writing nothing", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 5 } });
    const base = { sender_id: "SWBRD", message: "Hi" };
    const cases: [unknown, number, string][] = [
      [{ ...base }, 400, "invalid_request"],
      [{ ...base, recipients: ["9876543210"], group_id: 1 }, 400, "invalid_request"],
      [{ ...base, recipients: [] }, 400, "invalid_recipient"],
      [{ ...base, recipients: ["123", "abc"] }, 422, "invalid_recipient"],
      [{ ...base, recipients: "9876543210" }, 400, "invalid_request"],
      [{ ...base, recipients: [9876543210] }, 400, "invalid_request"],
      [{ ...base, recipients: ["9876543210"], extra: 1 }, 400, "invalid_request"],
      [{ message: "Hi", recipients: ["9876543210"] }, 400, "missing_sender_id"],
      [{ sender_id: "SWBRD", recipients: ["9876543210"] }, 400, "missing_message"],
      [{ ...base, recipients: numbers(6) }, 402, "insufficient_credits"],
      [{ ...base, recipients: ["9876543210"], group_id: undefined, job_id: 999999 }, 404, "not_found"],
      [{ ...base, group_id: 999999 }, 404, "not_found"],
      // Past the largest id (2^53 - 1): a bad value, not an unknown group (test/app/integer-bounds.test.ts).
      [{ ...base, group_id: 1e20 }, 400, "invalid_request"],
      [{ ...base, recipients: ["9876543210"], route: "international" }, 403, "international_disabled"],
      [{ ...base, recipients: ["9876543210"], schedule_at: "tomorrow" }, 400, "invalid_schedule"],
    ];
    for (const [body, status, code] of cases) {
      const answer = await bulk(t, account, body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.success, JSON.stringify(body)).toBe(false);
      expect(answer.body.error.code, JSON.stringify(body)).toBe(code);
    }
    // Only blank numbers: none given, named as the body's field (the bulk body has no `recipient`).
    for (const path of ["/api/v2/sms/bulk", "/api/v2/sms/bulk/preview"]) {
      const json = { ...base, recipients: ["", "  "] };
      const blank = await call(t, "POST", path, { headers: keyOf(account), json });
      expect(blank.status).toBe(400);
      expect(blank.body.error).toMatchObject({ code: "invalid_recipient", field: "recipients" });
    }
    const tooMany = await bulk(t, account, { ...base, recipients: numbers(100_001) });
    expect(tooMany.status).toBe(400);
    const bad = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: { ...keyOf(account), "content-type": "application/json" },
      body: '{"recipients": [',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_json");
    expect(await balanceOf(t, account)).toBe(5);
    const jobs = await t.db.store.db
      .selectFrom("bulk_jobs")
      .select("id")
      .where("account_id", "=", account.id)
      .execute();
    expect(jobs).toEqual([]);
  });

  it("replays an Idempotency-Key: one job, one charge", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const body = { sender_id: "SWBRD", message: "Once", recipients: numbers(10) };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => bulk(t, account, body, { "idempotency-key": "campaign-42" })),
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    expect(new Set(answers.map((a) => a.body.data.job_id)).size).toBe(1);
    expect(await balanceOf(t, account)).toBe(90);
    const changed = await bulk(t, account, { ...body, message: "Twice" }, { "idempotency-key": "campaign-42" });
    expect(changed.status).toBe(409);
  });

  it("lists jobs newest first with paging, and hides other accounts' jobs", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = await bulk(t, account, { sender_id: "SWBRD", message: `Batch ${i}`, recipients: numbers(2) });
      ids.push(sent.body.data.job_id);
    }
    const list = (query: string) => call(t, "GET", `/api/v2/bulk-jobs${query}`, { headers: keyOf(account) });
    const page1 = await list("?per_page=2");
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((j: { id: number }) => j.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.meta).toEqual({ page: 1, per_page: 2, total: 3, last_page: 2 });
    expect(page1.body.data[0].delivery_summary.total).toBe(2);
    const page2 = await list("?per_page=2&page=2");
    expect(page2.body.data.map((j: { id: number }) => j.id)).toEqual([ids[0]]);
    const past = await list("?per_page=2&page=9");
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.total).toBe(3);
    for (const query of ["?page=0", "?per_page=101", "?per_page=0", "?page=x"]) {
      const answer = await list(query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.status, query).toBe("error");
    }
    const other = await buildAccount(t);
    expect((await call(t, "GET", "/api/v2/bulk-jobs", { headers: keyOf(other) })).body.data).toEqual([]);
    expect((await jobOf(t, other, ids[0]!)).status).toBe(404);
    expect((await jobOf(t, account, "abc")).status).toBe(404);
  });

  it("counts a bulk call as one request against the key's rate limit", async () => {
    const t = gateway();
    const created = await createAccountWithKey(
      { store: t.db.store, clock: t.clock, actor: cliActor() },
      { username: `rl_${Date.now()}`, password: "pw-123456", credits: { sms: 1000 }, rateLimit: 2 },
    );
    await t.db.store.db.updateTable("accounts").set({ dlt_scrubbing: 0 }).where("id", "=", created.id).execute();
    const { addSenderId } = await import("../../../src/domain/accounts/index.js");
    await addSenderId(t.db.store.db, t.clock, created.id, "SWBRD", { approve: true });
    const account = { id: created.id, username: "", password: "", apiKey: created.api_key };
    const body = { sender_id: "SWBRD", message: "Hi", recipients: numbers(100) };
    const first = await bulk(t, account, body);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    expect((await bulk(t, account, body)).status).toBe(200);
    const third = await bulk(t, account, body);
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toEqual(expect.any(String));
  });
});
