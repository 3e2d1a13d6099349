// Fairness: one account's 100,000-message promotional job does not hold back another account's
// transactional messages (lanes), and two accounts' promotional jobs are expanded in turn
// (the bulk expander serves one part per account per round).
import { expect, it, vi } from "vitest";
import { createLogger } from "../../../src/app/gateway.js";
import { BulkExpander } from "../../../src/delivery/dispatch/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";

function bulk(t: TestGateway, account: TestAccount, count: number, start: number) {
  const recipients = Array.from({ length: count }, (_, i) => String(start + i * 10));
  return call(t, "POST", "/api/v2/sms/bulk", {
    headers: keyOf(account),
    json: { sender_id: "PROMOTIONAL", route: "promotional", message: "Mega sale this weekend", recipients },
  });
}

async function jobState(t: TestGateway, account: TestAccount, id: number) {
  const answer = await call(t, "GET", `/api/v2/bulk-jobs/${id}`, { headers: keyOf(account) });
  return answer.body.data as { job: { status: string }; delivery_summary: { pending: number; delivered: number } };
}

describeEachEngine("fairness between accounts", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("a 100,000-message promotional job delays another account's transactional SMS by under a second", async () => {
    const t = gateway();
    const marketer = await buildAccount(t, { credits: { sms: 200_000 } });
    const bank = await buildAccount(t, { credits: { sms: 100 } });
    const job = await bulk(t, marketer, 100_000, 7_000_000_005);
    expect(job.status).toBe(200);
    expect(job.body.data.accepted).toBe(100_000);
    const jobId = job.body.data.job_id;

    // Wait until the job is being dispatched, then send OTPs from the other account throughout.
    const deadline = Date.now() + 30_000;
    while ((await jobState(t, marketer, jobId)).job.status === "queued") {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 50));
    }
    const otps: string[] = [];
    for (let i = 0; i < 10; i++) {
      const sent = await call(t, "POST", "/api/v2/sms/send", {
        headers: keyOf(bank),
        json: { sender_id: "SWBRD", recipient: `98${76_540_005 + i * 10}`, message: `Your OTP is ${1000 + i}` },
      });
      expect(sent.status).toBe(200);
      otps.push(sent.body.data.message_id);
      await new Promise((r) => setTimeout(r, 50));
    }

    const waitUntil = Date.now() + 10_000;
    let rows: { id: string; created_at: number; submitted_at: number | null }[] = [];
    while (Date.now() < waitUntil) {
      rows = await t.db.store.db
        .selectFrom("messages")
        .select(["id", "created_at", "submitted_at"])
        .where("id", "in", otps)
        .execute();
      if (rows.every((row) => row.submitted_at !== null)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const delays = rows.map((row) => (row.submitted_at ?? Number.POSITIVE_INFINITY) - row.created_at);
    expect(delays).toHaveLength(10);
    // The median under a second, nine in ten under three: behind the job's backlog (no lanes) every
    // one waits seconds; amid the suite on two busy cores one OTP in ten took 1.25 s with lanes, and
    // on a slower host 3.2 s while the other nine took 0.13–0.82 s (2 December 2026).
    const sorted = [...delays].sort((a, b) => a - b);
    expect(sorted[4], `delays ms: ${delays.join(", ")}`).toBeLessThan(1000);
    expect(sorted[8], `delays ms: ${delays.join(", ")}`).toBeLessThan(3000);
    // They really competed: promotional messages of the job were still to be dispatched when
    // the last OTP went out (queued, or not yet turned into messages by the expander).
    const lastOtp = Math.max(...rows.map((row) => row.submitted_at!));
    const later = await t.db.store.db
      .selectFrom("messages")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("job_id", "=", jobId)
      .where((eb) => eb.or([eb("submitted_at", "is", null), eb("submitted_at", ">", lastOtp)]))
      .executeTakeFirstOrThrow();
    const expanded = await t.db.store.db
      .selectFrom("bulk_parts")
      .select(["next_index", "count"])
      .where("job_id", "=", jobId)
      .executeTakeFirstOrThrow();
    expect(Number(later.n) + expanded.count - expanded.next_index).toBeGreaterThan(0);
  });
});

describeEachEngine("bulk expander", (engine) => {
  // API only: the test drives expanders itself.
  const gateway = useTestGateway(engine, { roles: ["api"] });

  it("serves two accounts' jobs in turn and turns every recipient into exactly one message, even with two expanders", async () => {
    const t = gateway();
    const first = await buildAccount(t, { credits: { sms: 10_000 } });
    const second = await buildAccount(t, { credits: { sms: 10_000 } });
    const big = await bulk(t, first, 6_000, 7_100_000_005);
    const small = await bulk(t, second, 1_500, 7_200_000_005);
    expect(big.status).toBe(200);
    expect(small.status).toBe(200);
    const deps = { store: t.db.store, clock: t.clock, logger: createLogger({ logLevel: "silent" }) };
    const options = { chunk: 500, maxBacklog: 100_000, idleMs: 20 };

    // One round serves each account once: the later, smaller job is not left behind the big one.
    const one = new BulkExpander(deps, options);
    expect(await one.expandOnce()).toBe(1_000);
    const byJob = async () => {
      const rows = await t.db.store.db
        .selectFrom("messages")
        .select(["job_id"])
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("job_id", "in", [big.body.data.job_id, small.body.data.job_id])
        .groupBy("job_id")
        .execute();
      return Object.fromEntries(rows.map((r) => [String(r.job_id), Number(r.n)]));
    };
    expect(await byJob()).toEqual({ [big.body.data.job_id]: 500, [small.body.data.job_id]: 500 });

    // Two expanders racing over the same parts (two worker processes): still one message per recipient.
    const two = new BulkExpander(deps, options);
    for (;;) {
      const [a, b] = await Promise.all([one.expandOnce(), two.expandOnce()]);
      if (a + b === 0) break;
    }
    const rows = await t.db.store.db
      .selectFrom("messages")
      .select(["recipient", "job_id"])
      .where("job_id", "in", [big.body.data.job_id, small.body.data.job_id])
      .execute();
    expect(rows).toHaveLength(7_500);
    expect(new Set(rows.map((r) => `${r.job_id}:${r.recipient}`)).size).toBe(7_500);
    const parts = await t.db.store.db.selectFrom("bulk_parts").select(["status", "next_index", "count"]).execute();
    for (const part of parts) expect(part).toMatchObject({ status: "done", next_index: part.count });
  });

  it("wakes for a committed bulk part, not for every accepted send", async () => {
    const t = gateway();
    await t.db.store.db.deleteFrom("messages").execute();
    const account = await buildAccount(t, { credits: { sms: 1_000 } });
    // An idle round only every minute: whatever expands within the test was woken by a signal.
    const expander = new BulkExpander(
      { store: t.db.store, clock: t.clock, logger: createLogger({ logLevel: "silent" }) },
      { chunk: 1_000, maxBacklog: 5_000, idleMs: 60_000 },
    );
    const rounds = vi.spyOn(expander, "expandOnce");
    expander.start();
    try {
      await vi.waitFor(() => expect(rounds).toHaveBeenCalledTimes(1));
      for (let i = 0; i < 5; i++) {
        const sent = await call(t, "POST", "/api/v2/sms/send", {
          headers: keyOf(account),
          json: { sender_id: "SWBRD", recipient: `98${76_550_005 + i * 10}`, message: `Your OTP is ${2000 + i}` },
        });
        expect(sent.status).toBe(200);
      }
      await new Promise((r) => setTimeout(r, 300));
      // Before BULK_PARTS_SIGNAL the dispatcher's wake-up ran a round per accepted group.
      expect(rounds).toHaveBeenCalledTimes(1);

      const job = await bulk(t, account, 20, 7_400_000_005);
      expect(job.status).toBe(200);
      const jobId = job.body.data.job_id;
      await vi.waitFor(
        async () => {
          const made = await t.db.store.db.selectFrom("messages").select("id").where("job_id", "=", jobId).execute();
          expect(made).toHaveLength(20);
        },
        { timeout: 5_000, interval: 50 },
      );
    } finally {
      await expander.stop();
    }
  });

  it("stops expanding while the queue is full", async () => {
    const t = gateway();
    // The previous test's messages are still queued here (no dispatcher runs): start empty.
    await t.db.store.db.deleteFrom("messages").execute();
    const account = await buildAccount(t, { credits: { sms: 10_000 } });
    const sent = await bulk(t, account, 3_000, 7_300_000_005);
    expect(sent.status).toBe(200);
    const expander = new BulkExpander(
      { store: t.db.store, clock: t.clock, logger: createLogger({ logLevel: "silent" }) },
      { chunk: 1_000, maxBacklog: 1_500, idleMs: 20 },
    );
    expect(await expander.expandOnce()).toBe(1_000);
    // 1,000 queued: room for 500 more.
    expect(await expander.expandOnce()).toBe(500);
    expect(await expander.expandOnce()).toBe(0);
  });
});
