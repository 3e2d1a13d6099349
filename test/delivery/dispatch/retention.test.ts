// MESSAGE_RETENTION_DAYS (issue 38): housekeeping removes the messages accepted that many days
// ago whose life is over, with what only they need (email contents, captured mail, events, SMPP
// parts) and the finished webhook deliveries of that age, in small batches; a message still
// waiting stays whatever its age; the ledger keeps every entry, so balances and their sums do
// not move. Real sends on a manual clock: the simulators report when the clock passes their
// latency, and retention runs once the clock has moved past the window.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { addEmailDomain } from "../../../src/channels/email/domains.js";
import { ledgerSum, walletBalance } from "../../../src/domain/accounts/index.js";
import { pruneRetiredMessages } from "../../../src/domain/messages/index.js";
import { setWebhookUrls } from "../../../src/domain/webhooks/settings.js";
import { postEmail } from "../../channels/email/helpers.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { sendSms } from "../../helpers/sms.js";

const DAY = 86_400_000;

let receiver: http.Server;
let receiverUrl: string;
beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => response.end("ok"));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describeEachEngine("message retention", (engine) => {
  const clock = new ManualClock("2026-10-01T06:30:00Z");
  const gateway = useTestGateway(engine, {
    clock,
    env: {
      MESSAGE_RETENTION_DAYS: "30",
      SIMULATOR_LATENCY_MS: "1000",
      SIMULATOR_FAILURE_RATE: "0",
      SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
    },
  });
  let account: TestAccount;

  const until = async (check: () => Promise<boolean>, what: string, explain?: () => Promise<unknown>) => {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) {
        const state = explain ? `: ${JSON.stringify(await explain())}` : "";
        throw new Error(`timed out waiting for ${what}${state}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const count = async (
    t: TestGateway,
    table:
      | "messages"
      | "email_contents"
      | "email_attachments"
      | "email_captured"
      | "email_events"
      | "webhook_deliveries"
      | "webhook_attempts",
  ) =>
    Number(
      (
        await t.db.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** Deliveries not finished yet: pending, or being posted. */
  const openDeliveries = async (t: TestGateway) =>
    Number(
      (
        await t.db.store.db
          .selectFrom("webhook_deliveries")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("status", "in", ["pending", "delivering"])
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    const t = gateway();
    account = await buildAccount(t, { credits: { sms: 50, email: 10 } });
    await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: receiverUrl });
    await addEmailDomain(t.db.store.db, t.clock, account.id, "shop.example.com", { approve: true });
  });

  it("removes retired messages and what only they need after the window, and leaves the ledger as it was", async () => {
    const t = gateway();
    const db = t.db.store.db;
    for (const recipient of ["9876543210", "9876543211", "9876543212"]) {
      expect((await sendSms(t, account, { sender_id: "SWBRD", recipient, message: "Old news" })).status).toBe(200);
    }
    const email = await postEmail(t, {
      api_key: account.apiKey,
      from: "news@shop.example.com",
      to: "asha@example.org, ravi@example.org",
      subject: "Your order",
      html: "<p>Hello</p>",
    });
    expect(email.status, email.text).toBe(200);
    // A message that still waits (scheduled for next year): kept whatever its age.
    const scheduled = await sendSms(t, account, {
      sender_id: "SWBRD",
      recipient: "9876543213",
      message: "Next year",
      schedule_at: `${new Date(clock.now().getTime() + 365 * DAY).toISOString().slice(0, 10)} 10:00:00`,
    });
    expect(scheduled.status, scheduled.text).toBe(200);
    // The simulated carrier reports a second after the submit, on the manual clock: moved on
    // while waiting, so a message the dispatcher submits after a first move is reported too.
    await until(async () => {
      clock.advance(1_000);
      return (
        Number(
          (
            await db
              .selectFrom("messages")
              .select((eb) => eb.fn.countAll<number>().as("n"))
              .where("account_id", "=", account.id)
              .where("status", "=", "delivered")
              .executeTakeFirstOrThrow()
          ).n,
        ) === 5
      );
    }, "the five messages delivered");
    // Every delivery finished (each message has two events, submitted and delivered), not only
    // five attempts made: the retention round after the clock's jump below runs once, and takes
    // only finished deliveries; one still pending then stays until a round a minute of clock
    // later, which this test's clock never reaches.
    await until(
      async () => (await count(t, "webhook_attempts")) >= 5 && (await openDeliveries(t)) === 0,
      "the delivery reports posted",
    );
    const emailId = (
      await db.selectFrom("messages").select("id").where("channel", "=", "email").executeTakeFirstOrThrow()
    ).id;
    await db
      .insertInto("email_events")
      .values({ message_id: emailId, account_id: account.id, kind: "opened", detail: null, at: clock.now().getTime() })
      .execute();
    expect(await count(t, "email_contents")).toBe(1);
    expect(await count(t, "email_captured")).toBe(2);
    const balance = await walletBalance(db, account.id, "sms");
    const entries = await db.selectFrom("ledger_entries").selectAll().where("account_id", "=", account.id).execute();
    // The delivery rollups (migration 0035) count the six messages: five delivered, one waiting.
    const rollups = () =>
      db
        .selectFrom("delivery_rollups")
        .selectAll()
        .orderBy("span")
        .orderBy("dim")
        .orderBy("bucket")
        .orderBy("value")
        .execute();
    const before = await rollups();
    const totals = before.filter((row) => row.span === "d" && row.dim === "");
    expect(totals.map((row) => [Number(row.sent), Number(row.delivered), Number(row.pending)])).toEqual([[6, 5, 1]]);

    // 29 days on, a prune with the window's cutoff finds nothing old enough.
    clock.advance(29 * DAY);
    const cutoff = clock.now().getTime() - 30 * DAY;
    expect(await pruneRetiredMessages(t.db.store, cutoff, 500, async () => undefined)).toBe(0);
    expect(await count(t, "messages")).toBe(6);

    // Past 30 days: the retired ones go, with their email data and the finished deliveries.
    clock.advance(2 * DAY);
    await until(async () => (await count(t, "messages")) === 1, "the retired messages removed");
    await until(
      async () => (await count(t, "webhook_deliveries")) === 0,
      "the finished deliveries removed",
      // The deliveries left: which event, in which state, made when and finished when (clock ms).
      () =>
        db
          .selectFrom("webhook_deliveries")
          .select(["id", "event", "status", "attempts", "created_at", "done_at", "next_attempt_at", "payload"])
          .execute()
          .then((rows) => ({ now: clock.now().getTime(), rows })),
    );
    expect((await db.selectFrom("messages").select("recipient").execute()).map((row) => row.recipient)).toEqual([
      "9876543213",
    ]);
    for (const table of [
      "email_contents",
      "email_attachments",
      "email_captured",
      "email_events",
      "webhook_attempts",
    ] as const) {
      expect(await count(t, table), table).toBe(0);
    }
    // The ledger as it was: every entry, the same balance, and the balance its sum.
    expect(await db.selectFrom("ledger_entries").selectAll().where("account_id", "=", account.id).execute()).toEqual(
      entries,
    );
    expect(await walletBalance(db, account.id, "sms")).toBe(balance);
    expect(await ledgerSum(db, account.id, "sms")).toBe(balance);
    // The rollups as they were: a removed message keeps its counts.
    expect(await rollups()).toEqual(before);
    expect(await ledgerSum(db, account.id, "email")).toBe(await walletBalance(db, account.id, "email"));
  });
});
