// "Credits used" is one figure, the ledger's: the debits of the SMS wallets (sms, international)
// since the account's midnight, net of the refunds since then. The account status's
// `today.credits_used`, the credit detail's `today_used` and `month_used`, and the history's day
// read it from one function, so they agree with each other and with the ledger at any moment:
// the audit saw 54 against 109, credits_used counting only the messages that had gone out.
// Sends held (scheduled, promotional hours), sent, in two parts, international, cancelled and
// refunded, a refund today of a message charged yesterday, a transfer (not use) and a bad send
// (refused, nothing charged).
import { DateTime } from "luxon";
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { milli } from "../../helpers/resellers.js";
import { FAST_SIMULATOR, keyOf, sendSms, waitForStatus } from "../../helpers/sms.js";

const ZONE = "Asia/Kolkata";

/** The ledger's own figure, in credits: debits net of refunds on sms and international in [from, until). */
async function ledgerUsed(t: TestGateway, accountId: number, from: number, until: number): Promise<number> {
  const rows = await t.db.store.db
    .selectFrom("ledger_entries")
    .select(["amount", "wallet", "kind"])
    .where("account_id", "=", accountId)
    .where("created_at", ">=", from)
    .where("created_at", "<", until)
    .execute();
  let total = 0;
  for (const row of rows) {
    if (["sms", "international"].includes(row.wallet) && ["debit", "refund"].includes(row.kind)) {
      total += Number(row.amount);
    }
  }
  return -total / 1000;
}

describeEachEngine("credits used: one figure, the ledger's, in the account status and the credit detail", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  /** The four readings of today's credits used, through the API. */
  async function readings(t: TestGateway, account: TestAccount) {
    const status = await call(t, "GET", "/api/v2/account/status", { headers: keyOf(account) });
    const credits = await call(t, "GET", "/api/v2/credits", { headers: keyOf(account) });
    const history = await call(t, "GET", "/api/v2/credits/history?days=2", { headers: keyOf(account) });
    for (const answer of [status, credits, history]) expect(answer.status, answer.text).toBe(200);
    return {
      credits_used: status.body.data.today.credits_used as number,
      today_used: credits.body.data.today_used as number,
      month_used: credits.body.data.month_used as number,
      history_today: history.body.data[1].credits_used as number,
      history_yesterday: history.body.data[0].credits_used as number,
      total_sent: status.body.data.today.total_sent as number,
    };
  }

  it("counts held, sent, two-part and international sends at once, refunds on their day; every reading equals the ledger", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 500, international: 50 } });
    const other = await buildAccount(t);
    // Promotional sends are held outside a one-hour window twelve hours from now.
    const hour = (DateTime.now().setZone(ZONE).hour + 12) % 24;
    const window = `${String(hour).padStart(2, "0")}:00-${String(hour).padStart(2, "0")}:30`;
    const setUp = await operatorCall(t, operator, "PATCH", `/accounts/${account.username}`, {
      international_enabled: true,
      routes: ["T", "P", "I"],
      promo_hours: window,
    });
    expect(setUp.status, setUp.text).toBe(200);
    const start = { sms: await milli(t, account.id), international: await milli(t, account.id, "international") };
    const send = async (body: Record<string, unknown>) => {
      const sent = await sendSms(t, account, {
        sender_id: "SWBRD",
        recipient: "9876543210",
        message: "hello",
        ...body,
      });
      expect(sent.status, sent.text).toBe(200);
      return sent.body.data.message_id as string;
    };
    const later = DateTime.now().setZone(ZONE).plus({ hours: 2 }).toFormat("yyyy-MM-dd HH:mm:ss");

    // Sent: one part (1) and two parts (2); international (1, its own wallet).
    expect((await waitForStatus(t, account, await send({}))).status).toBe("delivered");
    expect((await waitForStatus(t, account, await send({ message: "x".repeat(200) }))).status).toBe("delivered");
    expect((await waitForStatus(t, account, await send({ recipient: "+447911123456", route: "I" }))).status).toBe(
      "delivered",
    );
    // Held: scheduled (1) and promotional outside the window (1), charged on acceptance.
    const scheduled = await send({ schedule_at: later });
    const promo = await send({ route: "promotional", sender_id: "PROMOTIONAL" });
    for (const id of [scheduled, promo]) {
      expect((await call(t, "GET", `/api/v2/sms/status/${id}`, { headers: keyOf(account) })).body.data.status).toBe(
        "scheduled",
      );
    }
    // Scheduled and cancelled: debited and refunded today (0).
    const cancelled = await send({ schedule_at: later });
    const cancel = await call(t, "DELETE", `/api/v2/sms/schedule/${cancelled}`, { headers: keyOf(account) });
    expect(cancel.status, cancel.text).toBe(200);
    // A transfer to another account is not use.
    const transfer = await call(t, "POST", "/api/v2/credits/transfer", {
      headers: keyOf(account),
      json: { recipient_username: other.username, amount: 10 },
    });
    expect(transfer.status, transfer.text).toBe(200);
    // A refused send (no such sender ID) charges nothing.
    const refused = await sendSms(t, account, { sender_id: "NOSUCH", recipient: "9876543210", message: "hello" });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);

    const { from, until } = todayWindow();
    const ledger = await ledgerUsed(t, account.id, from, until);
    expect(ledger).toBe(6);
    // What the wallets fell by, the transfer aside.
    const fell =
      (start.sms - (await milli(t, account.id)) - 10_000 + start.international) / 1000 -
      (await milli(t, account.id, "international")) / 1000;
    expect(fell).toBe(6);
    const read = await readings(t, account);
    expect(read).toEqual({
      credits_used: 6,
      today_used: 6,
      month_used: 6,
      history_today: 6,
      history_yesterday: 0,
      // The counts stay the messages that went out: the three sent (held and cancelled ones are not).
      total_sent: 3,
    });

    // Held, then cancelled today: its refund is today's, and the figure falls with the ledger.
    const release = await call(t, "DELETE", `/api/v2/sms/schedule/${scheduled}`, { headers: keyOf(account) });
    expect(release.status, release.text).toBe(200);
    expect(await ledgerUsed(t, account.id, from, until)).toBe(5);
    expect(await readings(t, account)).toMatchObject({ credits_used: 5, today_used: 5, history_today: 5 });
  });

  it("a refund today of a message charged yesterday counts today; yesterday keeps its debit", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const later = DateTime.now().setZone(ZONE).plus({ hours: 2 }).toFormat("yyyy-MM-dd HH:mm:ss");
    const kept = await sendSms(t, account, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "a",
      schedule_at: later,
    });
    const dropped = await sendSms(t, account, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "b",
      schedule_at: later,
    });
    for (const sent of [kept, dropped]) expect(sent.status, sent.text).toBe(200);
    // Both were charged yesterday (the ledger's entries moved a day back, as if accepted then).
    const { from, until } = todayWindow();
    const yesterday = from - 12 * 3_600_000;
    await t.db.store.db
      .updateTable("ledger_entries")
      .set({ created_at: yesterday })
      .where("account_id", "=", account.id)
      .where("kind", "=", "debit")
      .execute();
    const id = dropped.body.data.message_id;
    const cancel = await call(t, "DELETE", `/api/v2/sms/schedule/${id}`, { headers: keyOf(account) });
    expect(cancel.status, cancel.text).toBe(200);

    // Today: a refund of 1 and no debit, which is no use (not a negative one).
    expect(await ledgerUsed(t, account.id, from, until)).toBe(-1);
    const read = await readings(t, account);
    expect(read).toMatchObject({ credits_used: 0, today_used: 0, history_today: 0, history_yesterday: 2 });
  });

  /** Today in the test accounts' zone, as the gateway reads it. */
  function todayWindow() {
    const start = DateTime.now().setZone(ZONE).startOf("day");
    return { from: start.toMillis(), until: start.plus({ days: 1 }).toMillis() };
  }
});
