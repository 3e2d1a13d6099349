// Messages an account accepted before it was blocked are held at dispatch, not sent (decision 0155),
// through a real gateway on a manual clock on both engines: scheduled sends and a scheduled bulk job
// of a blocked account (and of a sub-account whose reseller is blocked) stay queued, unsent and
// charged, the operator's answer and timeline saying why; reactivated, they are delivered with
// nothing charged twice; a scheduled email likewise. Held past MESSAGE_VALIDITY_HOURS, they fail refunded at every level. A
// worker in another process hears a block and a reactivation.
import { expect, it, vi } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { openStore } from "../../../src/base/store/store.js";
import { HeldAccounts } from "../../../src/delivery/dispatch/index.js";
import { base, emailAccount } from "../../channels/email/helpers.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { auditLedger, milli, resellerTree } from "../../helpers/resellers.js";
import { FAST_SIMULATOR, keyOf, sendSms } from "../../helpers/sms.js";

vi.setConfig({ testTimeout: 60_000 });

const HOUR = 3_600_000;
const NOT_ACTIVE = /^Its account, or an account above it, is not active/;

describeEachEngine("messages of an account that is not active", (engine) => {
  // Now, so that a schedule in the account's zone reads as the clock's hour ahead.
  const clock = new ManualClock(new Date());
  const gateway = useTestGateway(engine, { clock, env: FAST_SIMULATOR });
  let operator: TestAccount;

  const setStatus = async (t: TestGateway, account: TestAccount, status: string) => {
    operator ??= await buildAccount(t, { role: "operator", sender: null });
    await operatorCall(t, operator, "PATCH", `/accounts/${account.username}`, { status });
    // The worker has read it (its signal is heard a moment after the answer).
    const held = t.gateway.workers!.heldAccounts;
    await until(() => held.has(account.id) === (status !== "active"));
  };

  /** An hour ahead of the clock, as schedule_at takes it (Asia/Kolkata, UTC+05:30). */
  const inAnHour = () => {
    const at = new Date(clock.now().getTime() + HOUR + 5.5 * HOUR);
    return at.toISOString().slice(0, 19).replace("T", " ");
  };

  const rowsOf = (t: TestGateway, accountIds: number[]) =>
    t.db.store.db
      .selectFrom("messages")
      .select(["id", "account_id", "status", "error_code", "attempts", "submitted_at", "held_since", "due_at"])
      .where("account_id", "in", accountIds)
      .orderBy("id")
      .execute();

  /** Moves the clock and waits for what the rounds after it (housekeeping's, the dispatcher's) settle. */
  async function advance(ms: number, settled: () => Promise<boolean>) {
    clock.advance(ms);
    await until(settled, 20_000);
  }

  /** Waits for the account's `count` messages to be submitted, then moves the clock past the simulator's reports. */
  async function delivered(t: TestGateway, accountId: number, count: number) {
    const all = (status: string) => async () => {
      const rows = await rowsOf(t, [accountId]);
      return rows.length === count && rows.every((row) => row.status === status);
    };
    await until(all("submitted"), 20_000);
    await advance(1000, all("delivered"));
  }

  async function sendScheduled(t: TestGateway, account: TestAccount, recipients: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const recipient of recipients) {
      const sent = await sendSms(t, account, {
        sender_id: "SWBRD",
        recipient,
        message: "held while blocked",
        route: "T",
        schedule_at: inAnHour(),
      });
      expect(sent.status, sent.text).toBe(200);
      ids.push(sent.body.data.message_id);
    }
    return ids;
  }

  it("holds a blocked account's scheduled sends and bulk job, charged, and delivers them once it is active", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const ids = await sendScheduled(t, account, ["9876500101", "9876500102"]);
    const bulk = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: keyOf(account),
      json: {
        sender_id: "SWBRD",
        message: "bulk held while blocked",
        recipients: ["9876500201", "9876500202", "9876500203"],
        schedule_at: inAnHour(),
      },
    });
    expect(bulk.status, bulk.text).toBe(200);
    const charged = await milli(t, account.id);
    expect(charged).toBe(95_000);

    await setStatus(t, account, "blocked");
    await advance(HOUR + 1000, async () => {
      const rows = await rowsOf(t, [account.id]);
      return rows.length === 2 && rows.every((row) => row.error_code === "account_inactive");
    });
    // Held: queued, no attempt spent, never handed to the carrier; the bulk job not expanded.
    for (const row of await rowsOf(t, [account.id])) {
      expect(row).toMatchObject({ status: "queued", attempts: 0, submitted_at: null });
    }
    const part = await t.db.store.db
      .selectFrom("bulk_parts")
      .select(["status", "next_index"])
      .executeTakeFirstOrThrow();
    expect(part).toEqual({ status: "pending", next_index: 0 });
    expect(await milli(t, account.id)).toBe(charged);

    // The operator sees why it waits: the status answer's held, the timeline's held event.
    const detail = await operatorCall(t, operator, "GET", `/messages/${ids[0]}`);
    expect(detail.body.data.message.status).toBe("queued");
    expect(detail.body.data.message.held.code).toBe("account_inactive");
    expect(detail.body.data.message.held.message).toMatch(NOT_ACTIVE);
    expect(detail.body.data.message).not.toHaveProperty("error");
    const held = detail.body.data.timeline.find((event: { event: string }) => event.event === "held");
    expect(held.detail).toMatch(/^account not active: Its account.*or at once when it is active again\.$/);

    // Claimed again later (its wait over), still blocked: held again, still unsent.
    const firstHold = await rowsOf(t, [account.id]);
    await advance(2000, async () => {
      const rows = await rowsOf(t, [account.id]);
      return rows.every((row) => Number(row.due_at) > clock.now().getTime());
    });
    for (const [index, row] of (await rowsOf(t, [account.id])).entries()) {
      // The hold counts from its start; no attempt spent.
      expect(row).toMatchObject({ status: "queued", attempts: 0, held_since: firstHold[index]!.held_since });
    }

    await setStatus(t, account, "active");
    await delivered(t, account.id, 5);
    const answer = await call(t, "GET", `/api/v2/sms/status/${ids[1]}`, { headers: keyOf(account) });
    expect(answer.body.data).not.toHaveProperty("held");
    expect(await milli(t, account.id)).toBe(charged);
    await auditLedger(t);
  });

  it("holds a sub-account's queue while its reseller is blocked, and refunds every level when the hold expires", async () => {
    const t = gateway();
    const { top, mid, leaf } = await resellerTree(t, clock);
    const tree = [top, mid, leaf];
    const before = await Promise.all(tree.map((account) => milli(t, account.id)));
    const [, expiring] = await sendScheduled(t, leaf, ["9876500301", "9876500302"]);
    const charged = await Promise.all(tree.map((account) => milli(t, account.id)));
    expect(charged.every((balance, level) => balance < before[level]!)).toBe(true);

    await setStatus(t, top, "inactive");
    expect(t.gateway.workers!.heldAccounts.has(leaf.id)).toBe(true);
    await advance(HOUR + 1000, async () => {
      const rows = await rowsOf(t, [leaf.id]);
      return rows.every((row) => row.error_code === "account_inactive");
    });
    expect((await rowsOf(t, [leaf.id])).map((row) => row.submitted_at)).toEqual([null, null]);
    expect(await Promise.all(tree.map((account) => milli(t, account.id)))).toEqual(charged);

    // Held 48 h (MESSAGE_VALIDITY_HOURS) from the first hold: failed and refunded.
    await advance(49 * HOUR, async () => (await rowsOf(t, [leaf.id])).every((row) => row.status === "failed"));
    const failed = await operatorCall(t, operator, "GET", `/messages/${expiring}`);
    expect(failed.body.data.message.error.code).toBe("account_inactive");
    expect(failed.body.data.message.error.message).toMatch(
      /The message waited 48 h \(MESSAGE_VALIDITY_HOURS\) for its account to be active again\.$/,
    );
    expect(failed.body.data.message).not.toHaveProperty("held");
    expect(failed.body.data.cost.refunded).toBe(true);
    const events = failed.body.data.timeline.map((event: { event: string }) => event.event);
    expect(events).toEqual(expect.arrayContaining(["held", "failed", "refunded"]));
    // Every level has its charge back, once.
    expect(await Promise.all(tree.map((account) => milli(t, account.id)))).toEqual(before);
    await auditLedger(t);
    await setStatus(t, top, "active");
  });

  it("sends a sub-account's held messages once its reseller is active again", async () => {
    const t = gateway();
    const { top, mid, leaf } = await resellerTree(t, clock);
    const ids = await sendScheduled(t, leaf, ["9876500401", "9876500402", "9876500403"]);
    const charged = await Promise.all([top, mid, leaf].map((account) => milli(t, account.id)));
    await setStatus(t, top, "blocked");
    await advance(HOUR + 1000, async () => {
      const rows = await rowsOf(t, [leaf.id]);
      return rows.every((row) => row.error_code === "account_inactive");
    });
    // The sub-account itself, not blocked, is held with its reseller; so is the one between.
    expect(t.gateway.workers!.heldAccounts.has(mid.id)).toBe(true);
    await setStatus(t, top, "active");
    await delivered(t, leaf.id, 3);
    expect((await rowsOf(t, [leaf.id])).map((row) => row.id)).toEqual([...ids].sort());
    expect(await Promise.all([top, mid, leaf].map((account) => milli(t, account.id)))).toEqual(charged);
    const detail = await operatorCall(t, operator, "GET", `/messages/${ids[0]}`);
    const events = detail.body.data.timeline.map((event: { event: string }) => event.event);
    expect(events).toEqual(expect.arrayContaining(["held", "submitted", "delivered"]));
    expect(events).not.toContain("refunded");
    await auditLedger(t);
  });

  it("holds a blocked account's scheduled email, and sends it once the account is active", async () => {
    const t = gateway();
    const account = await emailAccount(t, 5);
    const sent = await call(t, "POST", "/api/v2/email/send", {
      headers: keyOf(account),
      json: { ...base(account), api_key: undefined, send_at: inAnHour() },
    });
    expect(sent.status, sent.text).toBe(201);
    const charged = await milli(t, account.id, "email");
    expect(charged).toBe(4_000);
    await setStatus(t, account, "blocked");
    await advance(HOUR + 1000, async () =>
      (await rowsOf(t, [account.id])).every((row) => row.error_code === "account_inactive"),
    );
    const [row] = await rowsOf(t, [account.id]);
    expect(row).toMatchObject({ status: "queued", attempts: 0, submitted_at: null });
    expect(await milli(t, account.id, "email")).toBe(charged);
    await setStatus(t, account, "active");
    await until(async () => (await rowsOf(t, [account.id])).every((one) => one.submitted_at !== null), 20_000);
    expect(await milli(t, account.id, "email")).toBe(charged);
  });

  it("is heard by a worker in another process, block and reactivation", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    // Another process: its own store (connection, signals) on the same database.
    const other = await openStore(t.db.target, t.db.schema ? { pgSchema: t.db.schema } : {});
    const held = new HeldAccounts({ store: other, clock, logger: t.gateway.ctx.logger });
    try {
      await held.start();
      expect(held.has(account.id)).toBe(false);
      await setStatus(t, account, "blocked");
      await until(() => held.has(account.id), 5_000);
      await setStatus(t, account, "active");
      await until(() => !held.has(account.id), 5_000);
    } finally {
      await held.stop();
      await other.close();
    }
  });
});
