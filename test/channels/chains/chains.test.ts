// POST /api/v2/send through the real server with the WhatsApp and SMS simulators: the next step
// goes only when its condition on the one before is met, exactly once, each step charged and
// refunded as its own message, and chain_completed written after the steps' own events. Most of
// its time is waits (the simulators' latencies): the two engines wait together. A step's deadline
// is clock time, a minute away: the gateway's clock runs with the real one, and a test moves it
// a minute on when it wants the deadline passed, so a slow machine never passes one before the
// test has looked at the step waiting for it.
import { expect, it } from "vitest";
import type { Clock } from "../../../src/base/core/clock.js";
import { approveCallerIdFor } from "../../../src/channels/voice/index.js";
import { walletBalance } from "../../../src/domain/accounts/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { addSendingDomain } from "../email/helpers.js";
import { CALLER } from "../voice/helpers.js";
import {
  type ChainAccount,
  chainAccount,
  chainMessages,
  SMS_STEP as sms,
  WHATSAPP_STEP as whatsapp,
} from "./helpers.js";

const WHATSAPP_FAILS = "919876500002";
const WHATSAPP_REFUSED = "919876500003";
const WHATSAPP_NEVER_READ = "919876500001";
const WHATSAPP_READ = "919876543210";
/** The real time, plus however far a test moved it on. */
class MovableClock implements Clock {
  private ahead = 0;
  now(): Date {
    return new Date(Date.now() + this.ahead);
  }
  advance(ms: number): void {
    this.ahead += ms;
  }
}
const DEADLINE_S = 60;

const ENV = {
  SIMULATOR_LATENCY_MS: "20",
  SIMULATOR_FAILURE_RATE: "0",
  CHAIN_POLL_MS: "50",
  SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
};

async function webhookEvents(t: TestGateway, accountId: number) {
  return t.db.store.db
    .selectFrom("webhook_deliveries")
    .select(["event", "order_key", "payload"])
    .where("account_id", "=", accountId)
    .orderBy("id")
    .execute();
}

async function hooks(a: ChainAccount) {
  const urls = { delivery_report: "http://127.0.0.1:9/dlr", chain_completed: "http://127.0.0.1:9/chains" };
  expect((await a.v2("PUT", "/webhooks", urls)).status).toBe(200);
}

describeEnginesTogether("fallback send (POST /api/v2/send)", (engine) => {
  const clock = new MovableClock();
  const gateway = useTestGateway(engine, {
    clock,
    env: { ...ENV, WHATSAPP_SIMULATOR_LATENCY_MS: "40" },
  });

  it("sends exactly one SMS after a WhatsApp message that fails, and chain_completed after every step's events", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    await hooks(a);
    const started = await a.send({
      recipient: WHATSAPP_FAILS,
      steps: [whatsapp, { ...sms, to: "9876512345", after: { on: "failed" } }],
    });
    expect(started.status, started.text).toBe(200);
    const { chain_id, steps } = started.body.data;
    expect(chain_id).toMatch(/^c[0-9A-Z]{26}$/);
    // The simulator fails the message 40 ms after sending it: the answer may already know.
    expect(steps[0]).toMatchObject({ channel: "whatsapp", to: WHATSAPP_FAILS });
    expect(["sent", "failed"]).toContain(steps[0].status);
    expect(steps[1]).toMatchObject({ channel: "sms", to: "9876512345", after: { on: "failed" } });

    const done = await a.completed(chain_id);
    expect(done.outcome).toBe("delivered");
    expect(done.steps.map((s) => s.status)).toEqual(["failed", "delivered"]);
    const messages = await chainMessages(t, chain_id);
    expect(messages.map((m) => [m.channel, m.status])).toEqual([
      ["whatsapp", "failed"],
      ["sms", "delivered"],
    ]);
    // The WhatsApp credit stays spent (it was sent); one SMS charged.
    expect(await walletBalance(t.db.store.db, a.account.id, "whatsapp")).toBe(9_000);
    expect(await walletBalance(t.db.store.db, a.account.id, "sms")).toBe(99_000);

    const events = await webhookEvents(t, a.account.id);
    const last = events.at(-1)!;
    expect(last.event).toBe("chain_completed");
    expect(events.filter((e) => e.event === "chain_completed")).toHaveLength(1);
    expect(JSON.parse(last.payload)).toMatchObject({
      event: "chain_completed",
      chain_id,
      outcome: "delivered",
      steps: [
        { channel: "whatsapp", status: "failed" },
        { channel: "sms", status: "delivered" },
      ],
    });
    const reported = events.filter((e) => e.event === "delivery_report").map((e) => e.order_key);
    expect(new Set(reported)).toEqual(new Set(messages.map((m) => m.id)));

    // The message detail names its chain, in its answer and its timeline.
    const detail = (await a.v2("GET", `/messages/${messages[1]!.id}`)).body.data;
    expect(detail.chain).toEqual({ chain_id, step: 2, steps: 2 });
    expect(detail.timeline.map((e: { event: string }) => e.event)).toContain("chain step");
  });

  it("goes on at once when the first step's channel refuses it", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    const started = await a.send({ recipient: WHATSAPP_REFUSED, steps: [whatsapp, { ...sms, to: "9876512346" }] });
    expect(started.status, started.text).toBe(200);
    const [first, second] = started.body.data.steps;
    // WhatsApp refused the send (its failed message charged nothing); the SMS is already queued.
    expect(first).toMatchObject({ status: "failed" });
    expect(second.message_id).toMatch(/^q/);
    const done = await a.completed(started.body.data.chain_id);
    expect(done.steps.map((s) => s.status)).toEqual(["failed", "delivered"]);
    expect(await walletBalance(t.db.store.db, a.account.id, "whatsapp")).toBe(10_000);
  });

  it("refuses a WhatsApp text outside the 24-hour window as the step's refusal, and falls back", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    const started = await a.send({
      recipient: "919876511111",
      steps: [
        { channel: "whatsapp", message: "Your order has shipped." },
        { ...sms, after: { on: "not_delivered", within_seconds: 60 } },
      ],
    });
    expect(started.status, started.text).toBe(200);
    const [first, second] = started.body.data.steps;
    expect(first).toMatchObject({ status: "refused", message_id: null, error: { code: "template_required" } });
    expect(second.message_id).toMatch(/^q/);
    await a.completed(started.body.data.chain_id);
    expect(await walletBalance(t.db.store.db, a.account.id, "whatsapp")).toBe(10_000);
  });

  it("sends no SMS when the WhatsApp message is read before the deadline", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    const started = await a.send({
      recipient: WHATSAPP_READ,
      steps: [whatsapp, { ...sms, after: { on: "not_read", within_seconds: DEADLINE_S } }],
    });
    const done = await a.completed(started.body.data.chain_id);
    expect(done.outcome).toBe("delivered");
    expect(done.steps.map((s) => [s.status, s.message_id === null])).toEqual([
      ["read", false],
      ["skipped", true],
    ]);
    expect(await chainMessages(t, done.chain_id)).toHaveLength(1);
    expect(await walletBalance(t.db.store.db, a.account.id, "sms")).toBe(100_000);
  });

  it("sends the SMS at the deadline when the WhatsApp message is delivered but not read", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    const before = clock.now().getTime();
    const started = await a.send({
      recipient: WHATSAPP_NEVER_READ,
      steps: [whatsapp, { ...sms, to: "9876512347", after: { on: "not_read", within_seconds: DEADLINE_S } }],
    });
    const after = clock.now().getTime();
    const chainId = started.body.data.chain_id;
    const waiting = started.body.data.steps[1];
    expect(waiting.status).toBe("waiting");
    // decides_at is written to the second.
    expect(Date.parse(waiting.decides_at)).toBeGreaterThanOrEqual(before + DEADLINE_S * 1000 - 999);
    expect(Date.parse(waiting.decides_at)).toBeLessThanOrEqual(after + DEADLINE_S * 1000);
    // Delivered, not read: the SMS still waits for its deadline.
    await until(
      async () => (await a.chain(chainId)).body.data.steps[0].status === "delivered",
      Number.POSITIVE_INFINITY,
    );
    expect((await a.chain(chainId)).body.data.steps[1]).toMatchObject({ status: "waiting", message_id: null });
    clock.advance(DEADLINE_S * 1000);
    const done = await a.completed(chainId);
    expect(done.steps.map((s) => s.status)).toEqual(["delivered", "delivered"]);
    const messages = await chainMessages(t, done.chain_id);
    expect(messages).toHaveLength(2);
    const sentAt = await t.db.store.db
      .selectFrom("messages")
      .select("created_at")
      .where("id", "=", messages[1]!.id)
      .executeTakeFirstOrThrow();
    expect(Number(sentAt.created_at)).toBeGreaterThanOrEqual(before + DEADLINE_S * 1000);
  });

  it("sends no later step, WhatsApp included, once a parent of the account is blocked", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    const reseller = await buildAccount(t, { credits: { sms: 100, whatsapp: 10 } });
    await t.db.store.db
      .updateTable("accounts")
      .set({ parent_id: reseller.id })
      .where("id", "=", a.account.id)
      .execute();
    const started = await a.send({
      recipient: WHATSAPP_NEVER_READ,
      steps: [whatsapp, { ...whatsapp, to: WHATSAPP_READ, after: { on: "not_read", within_seconds: DEADLINE_S } }],
    });
    expect(started.status, started.text).toBe(200);
    expect(started.body.data.steps[1].status).toBe("waiting");
    // The operator blocks the reseller while the second step waits for its deadline.
    await t.db.store.db.updateTable("accounts").set({ status: "blocked" }).where("id", "=", reseller.id).execute();
    clock.advance(DEADLINE_S * 1000);
    const done = await a.completed(started.body.data.chain_id);
    expect(done.steps.map((s) => s.status)).toEqual(["delivered", "refused"]);
    expect(done.steps[1]!.error).toMatchObject({ code: "account_inactive" });
    expect(String((done.steps[1]!.error as { message: string }).message)).toMatch(
      /A parent account of this account is blocked/,
    );
    // One WhatsApp message only: the first step's.
    expect((await chainMessages(t, done.chain_id)).map((m) => m.recipient)).toEqual([WHATSAPP_NEVER_READ]);
  });

  it("refunds a step's SMS as its own message, and ends undelivered when no step got through", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    // SMS to ...0002 is rejected by the simulated carrier (refunded).
    const started = await a.send({ recipient: WHATSAPP_FAILS, steps: [whatsapp, sms] });
    const done = await a.completed(started.body.data.chain_id);
    expect(done.outcome).toBe("undelivered");
    expect(done.steps.map((s) => s.status)).toEqual(["failed", "failed"]);
    expect(await walletBalance(t.db.store.db, a.account.id, "sms")).toBe(100_000);
    // Each failed step says why, as its message's status answer does (audit F9).
    for (const step of done.steps) {
      const message = await a.v2("GET", `/messages/${step.message_id}`);
      expect(message.body.data.message.error, message.text).toMatchObject({ code: expect.any(String) });
      expect(step.error).toEqual(message.body.data.message.error);
    }
  });

  it("names the carrier's reason on a step whose SMS failed at the carrier (UNDELIV)", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    // SMS to ...0001 is carried and reported UNDELIV by the simulated carrier.
    const started = await a.send({ recipient: "919876500001", steps: [sms] });
    expect(started.status, started.text).toBe(200);
    const done = await a.completed(started.body.data.chain_id);
    const [step] = done.steps;
    expect(step?.status).toBe("failed");
    const message = await a.v2("GET", `/messages/${step?.message_id}`);
    expect(message.body.data.message.sent_time).not.toBeNull();
    expect(JSON.stringify(message.body.data.message.error)).toMatch(/UNDELIV/);
    expect(step?.error).toEqual(message.body.data.message.error);
  });

  it("falls back from a voice call that fails to an email, each through its own channel and wallet", async () => {
    const t = gateway();
    const a = await chainAccount(t, { sms: 100, whatsapp: 10, voice: 10, email: 10 });
    await approveCallerIdFor({ store: t.db.store, clock: t.clock, actor: cliActor() }, a.account.username, CALLER);
    await addSendingDomain(t.db.store.db, a.account.id, "shop.example.com");
    // A call to ...0001 fails on the voice simulator.
    const started = await a.send({
      recipient: "9876500001",
      steps: [
        { channel: "voice", from: CALLER, text: "Your order has shipped." },
        {
          channel: "email",
          to: "asha@example.org",
          from: "Shop <news@shop.example.com>",
          subject: "Your order has shipped",
          html: "<p>Order 1001 is on its way.</p>",
          after: { on: "not_delivered", within_seconds: 60 },
        },
      ],
    });
    expect(started.status, started.text).toBe(200);
    const done = await a.completed(started.body.data.chain_id);
    expect(done.steps.map((s) => [s.channel, s.to, s.status])).toEqual([
      ["voice", "9876500001", "failed"],
      ["email", "asha@example.org", "delivered"],
    ]);
    expect(done.outcome).toBe("delivered");
    expect(await walletBalance(t.db.store.db, a.account.id, "email")).toBe(9_000);
  });

  it("refuses bad chains in the v2 dialect, storing and charging nothing", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    // Each names its field as the docs write one (`steps[1].after.on`), in words, never a schema engine's phrase.
    const bad: Array<[unknown, string]> = [
      [{ recipient: WHATSAPP_READ, steps: [] }, "steps"],
      [{ recipient: WHATSAPP_READ, steps: Array.from({ length: 6 }, () => sms) }, "steps"],
      [{ recipient: WHATSAPP_READ, steps: [{ channel: "pigeon" }] }, "steps[0].channel"],
      [{ recipient: WHATSAPP_READ, steps: [sms, { ...sms, after: { on: "not_read" } }] }, "steps[1].after.on"],
      [
        { recipient: WHATSAPP_READ, steps: [whatsapp, { ...sms, after: { on: "failed", within_seconds: 0 } }] },
        "steps[1].after.within_seconds",
      ],
      [
        { recipient: WHATSAPP_READ, steps: [whatsapp, { ...sms, after: { on: "failed", within_seconds: 1.5 } }] },
        "steps[1].after.within_seconds",
      ],
      [{ recipient: WHATSAPP_READ, steps: [whatsapp, { ...sms, after: { on: "soon" } }] }, "steps[1].after.on"],
      [{ recipient: WHATSAPP_READ, steps: [{ ...whatsapp, after: { on: "failed" } }] }, "steps[0].after"],
      [{ recipient: WHATSAPP_READ, steps: [{ ...sms, template: "hello_world" }] }, "steps[0].template"],
      [{ recipient: WHATSAPP_READ, steps: [{ ...sms, message: 42 }] }, "steps[0].message"],
      [{ recipient: WHATSAPP_READ, steps: [{ ...sms, schedule_at: "2030-01-01 10:00:00" }] }, "steps[0].schedule_at"],
      [{ steps: [sms] }, "recipient"],
    ];
    for (const [body, field] of bad) {
      const answer = await a.send(body);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body, answer.text).toMatchObject({ status: "error", error: { code: "invalid_request", field } });
      expect(answer.text).not.toMatch(/schema is false|must have required|must NOT have/);
    }
    const scheduled = await a.send({
      recipient: WHATSAPP_READ,
      steps: [{ ...sms, schedule_at: "2030-01-01 10:00:00" }],
    });
    expect(scheduled.body.message).toMatch(
      /^steps\[0\]: Unknown field "schedule_at" in sms step\. sms steps take: .*sender_id/,
    );
    expect(
      await t.db.store.db.selectFrom("send_chains").select("id").where("account_id", "=", a.account.id).execute(),
    ).toEqual([]);
    expect(await walletBalance(t.db.store.db, a.account.id, "sms")).toBe(100_000);
    expect(await walletBalance(t.db.store.db, a.account.id, "whatsapp")).toBe(10_000);
  });

  it("answers a retry with the same Idempotency-Key with the same chain, sending nothing twice", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    const body = { recipient: WHATSAPP_READ, steps: [whatsapp, { ...sms, after: { on: "not_read" } }] };
    const post = (json: unknown) =>
      call(t, "POST", "/api/v2/send", {
        headers: { authorization: `Bearer ${a.account.apiKey}`, "idempotency-key": "order-1001" },
        json,
      });
    const answers = await Promise.all([post(body), post(body), post(body)]);
    const ids = new Set(answers.map((answer) => answer.body.data?.chain_id));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(ids.size).toBe(1);
    expect(
      await t.db.store.db.selectFrom("send_chains").select("id").where("account_id", "=", a.account.id).execute(),
    ).toHaveLength(1);
    expect(await walletBalance(t.db.store.db, a.account.id, "whatsapp")).toBe(9_000);
    const other = await post({ ...body, recipient: WHATSAPP_NEVER_READ });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("idempotency_conflict");
  });

  it("shows a chain only to its own account", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    const b = await chainAccount(t);
    const started = await a.send({ recipient: WHATSAPP_READ, steps: [whatsapp] });
    expect((await a.chain(started.body.data.chain_id)).status).toBe(200);
    const other = await b.chain(started.body.data.chain_id);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe("not_found");
    expect((await b.chain("nonsense")).status).toBe(404);
    expect((await call(t, "GET", `/api/v2/send/${started.body.data.chain_id}`)).status).toBe(401);
  });
});

describeEnginesTogether("fallback send: not_delivered", (engine) => {
  // The simulator would report WhatsApp's delivery only after ten minutes: the test reports it
  // itself, once the step's deadline has passed and the SMS has gone.
  const clock = new MovableClock();
  const gateway = useTestGateway(engine, {
    clock,
    env: { ...ENV, WHATSAPP_SIMULATOR_LATENCY_MS: "600000" },
  });

  it("sends the SMS once the deadline passes with the WhatsApp message undelivered", async () => {
    const t = gateway();
    const a = await chainAccount(t);
    const before = clock.now().getTime();
    const started = await a.send({
      recipient: WHATSAPP_READ,
      steps: [whatsapp, { ...sms, after: { on: "not_delivered", within_seconds: DEADLINE_S } }],
    });
    const chainId = started.body.data.chain_id;
    expect(started.body.data.steps[1].status).toBe("waiting");
    clock.advance(DEADLINE_S * 1000);
    let messageId: string | null = null;
    await until(async () => {
      messageId = (await a.chain(chainId)).body.data.steps[1].message_id;
      return messageId !== null;
    }, Number.POSITIVE_INFINITY);
    const [first, second] = await chainMessages(t, chainId);
    const sentAt = await t.db.store.db
      .selectFrom("messages")
      .select("created_at")
      .where("id", "=", second!.id)
      .executeTakeFirstOrThrow();
    expect(Number(sentAt.created_at)).toBeGreaterThanOrEqual(before + DEADLINE_S * 1000);
    expect((await a.chain(chainId)).body.data.steps[0].status).toBe("sent");
    // WhatsApp's delivery report arrives after the SMS went.
    const { upstream_id } = await t.db.store.db
      .selectFrom("messages")
      .select("upstream_id")
      .where("id", "=", first!.id)
      .executeTakeFirstOrThrow();
    await t.gateway.ctx.whatsapp.events.applyStatuses([
      {
        phoneNumberId: String(300_000_000_000 + a.account.id),
        messageId: upstream_id!,
        status: "delivered",
        at: clock.now().getTime(),
        recipientId: WHATSAPP_READ,
        errors: [],
      },
    ]);
    const done = await a.completed(chainId);
    // The chain ends once both messages are final: WhatsApp's delivered counts, a read may follow.
    expect(done.steps.map((s) => s.status)).toEqual(["delivered", "delivered"]);
    expect(await chainMessages(t, done.chain_id)).toHaveLength(2);
  });
});
