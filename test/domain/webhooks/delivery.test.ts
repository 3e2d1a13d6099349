import { expect, it, vi } from "vitest";
import { createLogger } from "../../../src/app/gateway.js";
import { ManualClock } from "../../../src/base/core/clock.js";
import { emailNotifyTargets } from "../../../src/channels/email/index.js";
import type { Connector } from "../../../src/delivery/dispatch/index.js";
import { claimDueMessages } from "../../../src/domain/messages/index.js";
import { WebhookOutbox } from "../../../src/domain/webhooks/outbox.js";
import { DEFAULT_SENDER_OPTIONS, WebhookSender, webhookRetryDelayMs } from "../../../src/domain/webhooks/sender.js";
import { rotateWebhookSecret, setWebhookUrls, webhookSettings } from "../../../src/domain/webhooks/settings.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestGateway, testDispatcher, useTestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, sendSms, waitForStatus } from "../../helpers/sms.js";
import { outboxSettled, receiver, until, useReceivers, verify } from "./receiver.js";

useReceivers();

/**
 * Wraps `sender`'s rounds; the function returned wakes it and resolves once a round that began
 * after the call has ended (a test's mark that the sender looked at the clock it set).
 */
function roundsOf(sender: WebhookSender): () => Promise<void> {
  const loop = sender as unknown as { round(): Promise<boolean> };
  const round = loop.round.bind(sender);
  let started = 0;
  let ended = 0;
  loop.round = async () => {
    const n = ++started;
    try {
      return await round();
    } finally {
      ended = n;
    }
  };
  return async () => {
    const from = started;
    sender.wake();
    await until(() => ended > from);
  };
}

describeEachEngine("webhooks through the running gateway", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });

  it("posts submitted then delivered for an SMS, signed, with the spec's fields in order, then broadcast_id", async () => {
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const { secret } = await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "Hello" });
    const id = sent.body.data.message_id;
    await waitForStatus(t, account, id);
    await until(() => hook.received.length >= 2);
    expect(hook.bodies().map((b) => b.status)).toEqual(["submitted", "delivered"]);
    for (const [index, request] of hook.received.entries()) {
      expect(request.headers["content-type"]).toBe("application/json");
      expect(verify(secret!, request)).toEqual(hook.bodies()[index]);
      const body = hook.bodies()[index]!;
      expect(Object.keys(body)).toEqual(["event", "message_id", "status", "delivered_at", "recipient", "broadcast_id"]);
      expect(body).toMatchObject({ event: "delivery_report", message_id: id, recipient: "9876543210" });
      expect(body.broadcast_id).toBe((await waitForStatus(t, account, id)).broadcast_id);
      expect(body.delivered_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
    expect(new Set(hook.received.map((r) => r.headers["webhook-id"])).size).toBe(2);
    // A wrong secret does not verify.
    expect(() => verify(`whsec_${Buffer.alloc(32, 1).toString("base64")}`, hook.received[0]!)).toThrow();
    // Another account's messages never reach this URL.
    const other = await buildAccount(t, { credits: { sms: 10 } });
    const otherSent = await sendSms(t, other, { sender_id: "SWBRD", recipient: "9876543211", message: "Hi" });
    await waitForStatus(t, other, otherSent.body.data.message_id);
    await outboxSettled(t.db.store, hook.url);
    expect(hook.received).toHaveLength(2);
  });

  it("posts inbound_sms for a message on the account's virtual number", async () => {
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const { secret } = await setWebhookUrls(t.db.store, t.clock, account.id, { inbound_sms: hook.url });
    await t.db.store.db
      .insertInto("inbound_numbers")
      .values({ account_id: account.id, number: "9220501001", created_at: Date.now() })
      .execute();
    const { ingestInbound } = await import("../../../src/channels/inbound/index.js");
    const ctx = t.gateway.ctx;
    await ingestInbound(ctx, {
      to: "919220501001",
      from: "+91 98765 43210",
      message: "Hello there",
      connector: "test",
    });
    await until(() => hook.received.length >= 1);
    const body = verify(secret!, hook.received[0]!) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["event", "from", "message", "received_at", "to"]);
    expect(body).toMatchObject({
      event: "inbound_sms",
      from: "9876543210",
      // The virtual number as stored: the carrier's 91 prefix is normalised away.
      to: "9220501001",
      message: "Hello there",
    });
  });
});

describeEachEngine("webhook sender", (engine) => {
  // API only: each test drives its own sender.
  const gateway = useTestGateway(engine, { roles: ["api"] });
  const fast = { ...DEFAULT_SENDER_OPTIONS, allowPrivate: true, baseDelayMs: 40, maxDelayMs: 200, idleMs: 20 };

  function senderFor(t: TestGateway, options: Partial<typeof fast> = {}) {
    return new WebhookSender(
      { store: t.db.store, clock: t.clock, logger: createLogger({ logLevel: "silent" }) },
      { ...fast, ...options },
    );
  }

  async function enqueue(t: TestGateway, accountId: number, ids: string[]) {
    const outbox = new WebhookOutbox(t.db.store, emailNotifyTargets);
    await t.db.store.transaction((trx) =>
      outbox.deliveryReports(
        trx,
        ids.map((id) => ({
          id,
          account_id: accountId,
          recipient: "9876543210",
          broadcast_id: "1_20260101_000001",
          status: "delivered",
          at: Date.now(),
        })),
        Date.now(),
      ),
    );
  }

  async function deliveries(t: TestGateway, accountId: number) {
    return t.db.store.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("account_id", "=", accountId)
      .orderBy("id")
      .execute();
  }

  it("retries a failing endpoint with back-off, the same webhook-id each time, and records every attempt", async () => {
    const t = gateway();
    const hook = await receiver();
    hook.answer = (_r, i) => (i < 2 ? 503 : 200);
    const account = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    await enqueue(t, account.id, ["q1"]);
    const sender = senderFor(t);
    sender.start();
    try {
      await until(async () => (await deliveries(t, account.id))[0]?.status === "delivered");
    } finally {
      await sender.stop();
    }
    expect(hook.received).toHaveLength(3);
    expect(new Set(hook.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    // Back-off: the gaps grow (40 ms ±20 %, then 80 ms ±20 %).
    const gaps = [hook.received[1]!.at - hook.received[0]!.at, hook.received[2]!.at - hook.received[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(30);
    expect(gaps[1]).toBeGreaterThanOrEqual(60);
    const [delivery] = await deliveries(t, account.id);
    const attempts = await t.db.store.db
      .selectFrom("webhook_attempts")
      .selectAll()
      .where("delivery_id", "=", delivery!.id)
      .orderBy("attempt")
      .execute();
    expect(attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 503, "HTTP 503"],
      [2, 503, "HTTP 503"],
      [3, 200, null],
    ]);
    for (const a of attempts) expect(a.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it("gives up after the retry period and marks the delivery failed", async () => {
    const t = gateway();
    const hook = await receiver();
    hook.answer = () => 500;
    const account = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    // The sender's clock is the test's: the period runs out when the test moves it, not when a
    // loaded machine gets round to the next attempt (on the wall clock, a first attempt slower
    // than the 300 ms period left no second one).
    const clock = new ManualClock(new Date());
    const created = clock.now().getTime();
    const outbox = new WebhookOutbox(t.db.store, emailNotifyTargets);
    await t.db.store.transaction((trx) =>
      outbox.deliveryReports(
        trx,
        [
          {
            id: "q1",
            account_id: account.id,
            recipient: "9876543210",
            broadcast_id: "1_20260101_000001",
            status: "delivered",
            at: created,
          },
        ],
        created,
      ),
    );
    const sender = new WebhookSender(
      { store: t.db.store, clock, logger: createLogger({ logLevel: "silent" }) },
      { ...fast, retryForMs: 300 },
    );
    const row = async () => (await deliveries(t, account.id))[0]!;
    sender.start();
    try {
      for (let attempt = 1; ; attempt++) {
        await until(async () => {
          const current = await row();
          return current.attempts === attempt && current.status !== "delivering";
        });
        const current = await row();
        const age = clock.now().getTime() - created;
        if (current.status === "failed") {
          // Failed by the first attempt made once the period was over, not before.
          expect(age).toBeGreaterThanOrEqual(300);
          break;
        }
        expect(current.status, `attempt ${attempt} at ${age} ms`).toBe("pending");
        expect(age, `attempt ${attempt} left pending`).toBeLessThan(300);
        // The next attempt is due: move the clock to it.
        clock.advance(current.next_attempt_at - clock.now().getTime());
        sender.wake();
      }
    } finally {
      await sender.stop();
    }
    const delivery = await row();
    expect(delivery.done_at! - delivery.created_at).toBeGreaterThanOrEqual(300);
    expect(delivery.last_error).toBe("HTTP 500");
    expect(hook.received.length).toBe(delivery.attempts);
    expect(hook.received.length).toBeGreaterThan(1);
  });

  it("follows the retry schedule on a controllable clock: 5 s doubling to the 1 h cap, failed after 24 h", async () => {
    const t = gateway();
    const hook = await receiver();
    hook.answer = () => 500;
    const account = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    const clock = new ManualClock(new Date());
    const outbox = new WebhookOutbox(t.db.store, emailNotifyTargets);
    const created = clock.now().getTime();
    await t.db.store.transaction((trx) =>
      outbox.deliveryReports(
        trx,
        [
          {
            id: "qclock",
            account_id: account.id,
            recipient: "9876543210",
            broadcast_id: "1_20260101_000001",
            status: "delivered",
            at: created,
          },
        ],
        created,
      ),
    );
    const sender = new WebhookSender(
      { store: t.db.store, clock, logger: createLogger({ logLevel: "silent" }) },
      { ...DEFAULT_SENDER_OPTIONS, allowPrivate: true, idleMs: 10 },
    );
    const row = async () => (await deliveries(t, account.id))[0]!;
    const afterNextRound = roundsOf(sender);
    sender.start();
    try {
      const waits: number[] = [];
      for (let attempt = 1; ; attempt++) {
        await until(async () => (await row()).attempts === attempt && (await row()).status !== "delivering");
        const current = await row();
        if (current.status === "failed") break;
        waits.push(current.next_attempt_at - clock.now().getTime());
        // Nothing is sent before the delay is up...
        clock.advance(Math.max(0, current.next_attempt_at - clock.now().getTime() - 1_000));
        await afterNextRound();
        expect((await row()).attempts).toBe(attempt);
        // ...and the next attempt goes once it is.
        clock.advance(1_000);
        sender.wake();
      }
      // 5 s, 10 s, 20 s ... each ±20 %, capped at 1 h ±20 %.
      for (const [i, wait] of waits.entries()) {
        const base = Math.min(5_000 * 2 ** i, 3_600_000);
        expect(wait, `wait ${i + 1}`).toBeGreaterThanOrEqual(base * 0.8 - 1);
        expect(wait, `wait ${i + 1}`).toBeLessThanOrEqual(base * 1.2 + 1);
      }
      const final = await row();
      expect(final.done_at! - final.created_at).toBeGreaterThanOrEqual(24 * 60 * 60 * 1000);
      expect(final.done_at! - final.created_at).toBeLessThan(26 * 60 * 60 * 1000);
      expect(hook.received).toHaveLength(final.attempts);
      expect(final.attempts).toBeGreaterThan(20);
    } finally {
      await sender.stop();
    }
  });

  it("schedules retries for at least 24 hours by default, with growing, capped, jittered delays", () => {
    const delays = Array.from({ length: 30 }, (_, i) => webhookRetryDelayMs(i + 1, DEFAULT_SENDER_OPTIONS));
    expect(delays[0]).toBeGreaterThanOrEqual(4_000);
    expect(delays[0]).toBeLessThanOrEqual(6_000);
    expect(delays[3]).toBeGreaterThanOrEqual(32_000);
    for (const d of delays) expect(d).toBeLessThanOrEqual(72 * 60 * 1000);
    expect(DEFAULT_SENDER_OPTIONS.retryForMs).toBeGreaterThanOrEqual(24 * 60 * 60 * 1000);
  });

  it("a receiver that is down for a while then recovers gets every event exactly once, in order per message", async () => {
    const t = gateway();
    const hook = await receiver();
    hook.down = true;
    const account = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    // Two messages, three events each (ordered by message), interleaved in the outbox.
    for (const status of ["submitted", "delivered", "failed"]) {
      const outbox = new WebhookOutbox(t.db.store, emailNotifyTargets);
      await t.db.store.transaction((trx) =>
        outbox.deliveryReports(
          trx,
          ["qA", "qB"].map((id) => ({
            id,
            account_id: account.id,
            recipient: "9876543210",
            broadcast_id: "1_20260101_000001",
            status,
            at: Date.now(),
          })),
          Date.now(),
        ),
      );
    }
    const sender = senderFor(t);
    sender.start();
    try {
      // Both messages' first events have failed while it was down.
      await until(async () => (await deliveries(t, account.id)).filter((d) => d.last_error !== null).length >= 2);
      hook.down = false;
      await until(async () => (await deliveries(t, account.id)).every((d) => d.status === "delivered"));
    } finally {
      await sender.stop();
    }
    const ids = hook.received.map((r) => r.headers["webhook-id"]);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
    for (const message of ["qA", "qB"]) {
      const statuses = hook
        .bodies()
        .filter((b) => b.message_id === message)
        .map((b) => b.status);
      expect(statuses).toEqual(["submitted", "delivered", "failed"]);
    }
  });

  it("posts an endpoint's deliveries in back-off at once when it answers again, not at the end of their back-off", async () => {
    const t = gateway();
    const hook = await receiver();
    hook.answer = (_r, i) => (i < 3 ? 500 : 200);
    const account = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    // A minute's back-off after each failure: as after an outage of a few minutes.
    const sender = senderFor(t, { baseDelayMs: 60_000, maxDelayMs: 60_000 });
    sender.start();
    try {
      await enqueue(t, account.id, ["w1", "w2", "w3"]);
      await until(async () => (await deliveries(t, account.id)).filter((d) => d.last_status === 500).length === 3);
      // Another event: the endpoint answers it, and the three failed ones go now.
      await enqueue(t, account.id, ["w4"]);
      await until(async () => (await deliveries(t, account.id)).every((d) => d.status === "delivered"), 10_000);
    } finally {
      await sender.stop();
    }
    const posts = hook.bodies().map((b) => b.message_id);
    expect(posts).toHaveLength(7);
    expect(posts.slice(0, 3).sort()).toEqual(["w1", "w2", "w3"]);
    expect(posts[3]).toBe("w4");
    expect(posts.slice(4).sort()).toEqual(["w1", "w2", "w3"]);
  });

  it("two senders (two worker processes) deliver each event exactly once, in order per message", async () => {
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    const outbox = new WebhookOutbox(t.db.store, emailNotifyTargets);
    const messages = Array.from({ length: 200 }, (_, i) => `qm${i}`);
    for (const status of ["submitted", "delivered"]) {
      await t.db.store.transaction((trx) =>
        outbox.deliveryReports(
          trx,
          messages.map((id) => ({
            id,
            account_id: account.id,
            recipient: "9876543210",
            broadcast_id: "1_20260101_000001",
            status,
            at: Date.now(),
          })),
          Date.now(),
        ),
      );
    }
    const senders = [senderFor(t, { concurrency: 32 }), senderFor(t, { concurrency: 32 })];
    for (const sender of senders) sender.start();
    try {
      await until(async () => (await deliveries(t, account.id)).every((d) => d.status === "delivered"), 20_000);
    } finally {
      for (const sender of senders) await sender.stop();
    }
    const ids = hook.received.map((r) => r.headers["webhook-id"]);
    expect(ids).toHaveLength(400);
    expect(new Set(ids).size).toBe(400);
    for (const id of messages) {
      expect(
        hook
          .bodies()
          .filter((b) => b.message_id === id)
          .map((b) => b.status),
      ).toEqual(["submitted", "delivered"]);
    }
  });

  it("deletes finished deliveries and their attempts after the retention period, and returns expired leases", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const now = Date.now();
    const day = 24 * 60 * 60 * 1000;
    const row = (webhookId: string, status: "delivered" | "failed" | "delivering", doneAt: number | null) => ({
      account_id: account.id,
      event: "delivery_report" as const,
      order_key: webhookId,
      webhook_id: webhookId,
      url: "http://127.0.0.1:9/hook",
      payload: "{}",
      status,
      attempts: 1,
      next_attempt_at: now,
      lease_until: status === "delivering" ? now - 1 : null,
      last_status: null,
      last_error: null,
      redelivery_of: null,
      created_at: now - 40 * day,
      done_at: doneAt,
    });
    const inserted = await t.db.store.db
      .insertInto("webhook_deliveries")
      .values([
        row("msg_old", "delivered", now - 31 * day),
        row("msg_old_failed", "failed", now - 31 * day),
        row("msg_recent", "delivered", now - 29 * day),
        row("msg_leased", "delivering", null),
      ])
      .returning(["id", "webhook_id"])
      .execute();
    await t.db.store.db
      .insertInto("webhook_attempts")
      .values(
        inserted.map((d) => ({ delivery_id: d.id, attempt: 1, status_code: 200, latency_ms: 1, error: null, at: now })),
      )
      .execute();
    await senderFor(t).upkeep();
    const left = await deliveries(t, account.id);
    expect(left.map((d) => [d.webhook_id, d.status])).toEqual([
      ["msg_recent", "delivered"],
      ["msg_leased", "pending"],
    ]);
    const attempts = await t.db.store.db
      .selectFrom("webhook_attempts")
      .select("delivery_id")
      .where(
        "delivery_id",
        "in",
        inserted.map((d) => d.id),
      )
      .execute();
    expect(attempts).toHaveLength(2);
  });

  it("claims a message's event however many others wait behind an earlier event of theirs in back-off", async () => {
    // After a receiver answered 500 for a while (the fault suite), thousands of messages had their
    // `submitted` event in back-off and their `delivered` event due but held back by it: when those
    // filled the claim's window, nothing else was ever claimed, not even the retries.
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    const now = Date.now();
    const row = (orderKey: string, webhookId: string, nextAttemptAt: number) => ({
      account_id: account.id,
      event: "delivery_report" as const,
      order_key: orderKey,
      webhook_id: webhookId,
      url: hook.url,
      payload: JSON.stringify({ message_id: orderKey }),
      status: "pending" as const,
      attempts: 0,
      next_attempt_at: nextAttemptAt,
      lease_until: null,
      last_status: null,
      last_error: null,
      redelivery_of: null,
      created_at: now - 60_000,
      done_at: null,
    });
    // A window of 16 (4 slots, 4 looked at per slot), 20 messages held back.
    const held = Array.from({ length: 20 }, (_, i) => `held${i}`);
    await t.db.store.db
      .insertInto("webhook_deliveries")
      .values(held.map((key) => row(key, `${key}-submitted`, now + 60 * 60_000)))
      .execute();
    await t.db.store.db
      .insertInto("webhook_deliveries")
      .values([...held.map((key) => row(key, `${key}-delivered`, now - 30_000)), row("free", "free-submitted", now)])
      .execute();
    const sender = senderFor(t, { concurrency: 4 });
    try {
      await sender.claimAndSend();
      await until(() => hook.received.length === 1);
    } finally {
      await sender.stop();
    }
    expect(hook.received.map((r) => r.headers["webhook-id"])).toEqual(["free-submitted"]);
  });

  it("a receiver that hangs does not hold back another account's webhooks", async () => {
    const t = gateway();
    const slow = await receiver();
    slow.answer = () => "hang";
    const quick = await receiver();
    const stuck = await buildAccount(t);
    const fine = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, stuck.id, { delivery_report: slow.url });
    await setWebhookUrls(t.db.store, t.clock, fine.id, { delivery_report: quick.url });
    await enqueue(
      t,
      stuck.id,
      Array.from({ length: 20 }, (_, i) => `qs${i}`),
    );
    await enqueue(
      t,
      fine.id,
      Array.from({ length: 20 }, (_, i) => `qf${i}`),
    );
    const sender = senderFor(t, { perAccount: 4, concurrency: 16, timeoutMs: 5_000 });
    const started = Date.now();
    sender.start();
    try {
      await until(() => quick.received.length >= 20, 3_000);
      expect(Date.now() - started).toBeLessThan(3_000);
      // The stuck account uses at most its own slots.
      expect(slow.received.length).toBeLessThanOrEqual(4);
    } finally {
      await slow.stop();
      await sender.stop();
    }
  });

  it("frees a slot when the receiver answers, before the outcome is recorded", async () => {
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    await enqueue(
      t,
      account.id,
      Array.from({ length: 20 }, (_, i) => `qa${i}`),
    );
    // One slot: each request waits for the one before it to free the slot. Nothing wakes the
    // sender between an answer and its recording (the recording wakes it after), so the next
    // request can only go out meanwhile on an idle round: every 2 ms, many fall in the 25 ms
    // before the recording. With the fixture's 20 ms, whether one did was chance (one CI run in
    // five saw none on PostgreSQL). Twenty events, not six: amid the whole suite on a slow
    // machine, six once went out with none overtaking.
    const sender = senderFor(t, { perAccount: 1, concurrency: 1, idleMs: 2 });
    sender.start();
    try {
      await until(async () => (await deliveries(t, account.id)).every((d) => d.status === "delivered"));
    } finally {
      await sender.stop();
    }
    expect(hook.received).toHaveLength(20);
    const rows = await deliveries(t, account.id);
    const recordedAt = new Map<string, number>();
    for (const attempt of await t.db.store.db.selectFrom("webhook_attempts").select(["delivery_id", "at"]).execute()) {
      const row = rows.find((d) => d.id === attempt.delivery_id);
      if (row) recordedAt.set(row.webhook_id, Number(attempt.at));
    }
    // Held until its outcome was recorded (RECORD_LINGER_MS, then a commit), the slot let the
    // next request out only after that; freed at the answer, the next one goes out meanwhile.
    const overtaken = hook.received.slice(1).filter((next, k) => {
      const previous = hook.received[k]!.headers["webhook-id"] as string;
      return next.at < recordedAt.get(previous)!;
    });
    expect(overtaken.length).toBeGreaterThan(0);
  });

  it("signs with both secrets during a rotation's grace period", async () => {
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t);
    const { secret: old } = await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    const fresh = await rotateWebhookSecret(t.db.store, t.clock, account.id);
    expect(fresh).not.toBe(old);
    expect((await webhookSettings(t.db.store, account.id, Date.now())).secret).toBe(fresh);
    await enqueue(t, account.id, ["q1"]);
    const sender = senderFor(t);
    sender.start();
    try {
      await until(() => hook.received.length >= 1);
    } finally {
      await sender.stop();
    }
    expect(String(hook.received[0]!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(old!, hook.received[0]!)).toMatchObject({ message_id: "q1" });
    expect(verify(fresh, hook.received[0]!)).toMatchObject({ message_id: "q1" });
  });

  it("refuses to post to a private address unless the operator allows it", async () => {
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    await enqueue(t, account.id, ["q1"]);
    const sender = senderFor(t, { allowPrivate: false });
    sender.start();
    try {
      await until(async () => ((await deliveries(t, account.id))[0]?.attempts ?? 0) >= 1);
    } finally {
      await sender.stop();
    }
    expect(hook.received).toHaveLength(0);
    const [delivery] = await deliveries(t, account.id);
    expect(delivery!.last_error).toMatch(/loopback|private|http/i);
  });
  it("hands delivery reports it has room for to this process's sender at commit, claimed, in order per message", async () => {
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    // An earlier event of m2 is still open (another worker holds it): m2's report must wait
    // for it, not overtake it.
    await enqueue(t, account.id, ["m2"]);
    const held = { status: "delivering" as const, lease_until: Date.now() + 3_600_000 };
    await t.db.store.db.updateTable("webhook_deliveries").set(held).where("account_id", "=", account.id).execute();
    // The sender never claims (idle for a minute): only the hand-off can send.
    const sender = senderFor(t, { idleMs: 60_000, perAccount: 2 });
    sender.start();
    const outbox = new WebhookOutbox(t.db.store, emailNotifyTargets);
    outbox.attachSender(sender);
    try {
      const report = (id: string) => ({
        id,
        account_id: account.id,
        recipient: "9876543210",
        broadcast_id: "1_20260101_000001",
        status: "delivered" as const,
        at: Date.now(),
      });
      const handoff = outbox.handoff()!;
      await t.db.store.transaction((trx) =>
        outbox.deliveryReports(trx, ["m1", "m2", "m3", "m1", "m4"].map(report), Date.now(), handoff),
      );
      const written = await deliveries(t, account.id);
      const by = (key: string) => written.filter((row) => row.order_key === key).map((row) => row.status);
      // m1 and m3 fill the account's 2 slots; m1's second event waits behind its first (a higher
      // id), m2 behind the earlier open event, m4 for want of a slot.
      expect(by("m1")).toEqual(["delivering", "pending"]);
      expect(by("m3")).toEqual(["delivering"]);
      expect(by("m2")).toEqual(["delivering", "pending"]);
      expect(by("m4")).toEqual(["pending"]);
      const claimed = written.filter((row) => row.status === "delivering" && row.order_key !== "m2");
      for (const row of claimed) expect(row).toMatchObject({ attempts: 1, lease_until: expect.any(Number) });
      expect(hook.received).toHaveLength(0);
      // The other worker lets m2's first event go (its lease given up): ours claims it later.
      await t.db.store.db
        .updateTable("webhook_deliveries")
        .set({ status: "pending", lease_until: null })
        .where("id", "=", written.find((row) => row.order_key === "m2")!.id)
        .execute();
      handoff.committed();
      // The handed two go out first: the sender claims (the rest) only once a slot is free.
      await until(() => hook.received.length >= 2);
      expect(
        hook
          .bodies()
          .slice(0, 2)
          .map((body) => body.message_id)
          .sort(),
      ).toEqual(["m1", "m3"]);
      // Then everything, each message's events in the order they were written, once each.
      await until(async () => (await deliveries(t, account.id)).every((row) => row.status === "delivered"));
      const all = await deliveries(t, account.id);
      const posted = hook.received.map((request) => request.headers["webhook-id"]);
      expect([...posted].sort()).toEqual(all.map((row) => row.webhook_id).sort());
      for (const key of ["m1", "m2"]) {
        const ids = all.filter((row) => row.order_key === key).map((row) => row.webhook_id);
        expect(posted.filter((id) => ids.includes(id as string))).toEqual(ids);
      }
      // Sent by the hand-off, not by a claim: their first attempt is the one that delivered.
      for (const row of all.filter((r) => claimed.some((c) => c.id === r.id))) expect(row.attempts).toBe(1);
      const attempts = await t.db.store.db.selectFrom("webhook_attempts").select(["delivery_id", "attempt"]).execute();
      expect(attempts.filter((a) => claimed.some((c) => c.id === a.delivery_id)).map((a) => a.attempt)).toEqual([1, 1]);

      // A transaction that fails gives its slots back and writes nothing.
      const failing = outbox.handoff()!;
      await expect(
        t.db.store.transaction(async (trx) => {
          await outbox.deliveryReports(trx, [report("m5")], Date.now(), failing);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      failing.failed();
      expect((await deliveries(t, account.id)).some((row) => row.order_key === "m5")).toBe(false);
      // Its slots are free again: both of the next reports are handed over.
      const again = outbox.handoff()!;
      await t.db.store.transaction((trx) =>
        outbox.deliveryReports(trx, [report("m6"), report("m7")], Date.now(), again),
      );
      expect(
        (await deliveries(t, account.id)).filter((row) => ["m6", "m7"].includes(row.order_key)).map((r) => r.status),
      ).toEqual(["delivering", "delivering"]);
      again.committed();
      await until(() => hook.received.length === all.length + 2);
    } finally {
      outbox.detachSender();
      await sender.stop();
    }
  });

  it("hands the dispatcher's submitted events to this process's sender at commit, with no claim", async () => {
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    for (let i = 0; i < 3; i++) {
      const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient: `98765${43_210 + i}`, message: "Hi" });
      expect(sent.status).toBe(200);
    }
    // The sender claims only when woken; every delivery it sends without a claim came by hand.
    // Earlier tests' deliveries (other accounts, some in back-off) would be claimed: none left.
    await t.db.store.db.deleteFrom("webhook_attempts").execute();
    await t.db.store.db.deleteFrom("webhook_deliveries").execute();
    const sender = senderFor(t, { idleMs: 60_000 });
    const claims = vi.spyOn(sender, "claimAndSend");
    sender.start();
    const outbox = new WebhookOutbox(t.db.store, emailNotifyTargets);
    outbox.attachSender(sender);
    const carrier: Connector = {
      name: "carrier",
      channel: "sms",
      submit: async (messages) => messages.map((m) => ({ ok: true, upstreamId: `C-${m.id}` })),
      onReports: () => undefined,
    };
    const dispatcher = testDispatcher(t, carrier, { idleMs: 60_000 }, { webhooks: outbox });
    try {
      await dispatcher.dispatch(await claimDueMessages(t.db.store, t.db.store.db, Date.now(), 100));
      await until(() => hook.received.length >= 3);
      expect(hook.bodies().map((body) => body.status)).toEqual(["submitted", "submitted", "submitted"]);
      const claimed = await Promise.all(claims.mock.results.map((result) => result.value as Promise<number>));
      expect(claimed.reduce((sum, n) => sum + n, 0)).toBe(0);
    } finally {
      outbox.detachSender();
      await sender.stop();
    }
  });

  it("puts back to pending what is handed to a sender that has stopped", async () => {
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t);
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: hook.url });
    const sender = senderFor(t, { idleMs: 60_000 });
    sender.start();
    const outbox = new WebhookOutbox(t.db.store, emailNotifyTargets);
    outbox.attachSender(sender);
    const handoff = outbox.handoff()!;
    await t.db.store.transaction((trx) =>
      outbox.deliveryReports(
        trx,
        [
          {
            id: "s1",
            account_id: account.id,
            recipient: "9876543210",
            broadcast_id: "1_20260101_000001",
            status: "delivered",
            at: Date.now(),
          },
        ],
        Date.now(),
        handoff,
      ),
    );
    expect((await deliveries(t, account.id)).map((row) => row.status)).toEqual(["delivering"]);
    await sender.stop();
    handoff.committed();
    await until(async () => (await deliveries(t, account.id))[0]?.status === "pending");
    expect((await deliveries(t, account.id))[0]).toMatchObject({ attempts: 0, lease_until: null });
    expect(hook.received).toHaveLength(0);
    // The next sender claims it as any pending delivery.
    const next = senderFor(t);
    next.start();
    try {
      await until(() => hook.received.length === 1);
    } finally {
      await next.stop();
    }
  });
});
