// The ledger's totals over a window (an auditor's reconciliation), on both engines: per wallet,
// the opening balance (the entries before the window), what each kind moved in it, the closing
// balance, and the balance now, which the closing equals when the window has no end; dates are the
// account's days; the account's GET /api/v2/credits/totals and the operator's
// /admin/api/accounts/{username}/ledger/totals agree; bad windows are 400s naming the parameter.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { keyOf, sendSms } from "../../helpers/sms.js";

const DAY = 24 * 3600 * 1000;

type Totals = Record<string, number | string>;

describeEachEngine("the ledger's totals", (engine) => {
  // 12:00 in Asia/Kolkata, the accounts' zone.
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, { clock, roles: ["api"] });

  const sms = (rows: Totals[]) => rows.find((row) => row.wallet === "sms");
  const own = async (t: TestGateway, account: TestAccount, query = "") => {
    const answer = await call(t, "GET", `/api/v2/credits/totals${query}`, { headers: keyOf(account) });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data as Totals[];
  };

  it("adds up each wallet: opening, each kind of entry, closing, and the balance", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const shop = await buildAccount(t, { credits: { sms: 100, whatsapp: 7 } });
    const friend = await buildAccount(t, { credits: { sms: 1 } });
    for (const recipient of ["9876543210", "9876543211"]) {
      expect((await sendSms(t, shop, { sender_id: "SWBRD", recipient, message: "day one" })).status).toBe(200);
    }
    // Two days later, in the account's 24 November: a top-up, a correction, a transfer, a send
    // scheduled and cancelled (its debit and its refund).
    clock.advance(2 * DAY);
    const topUp = await operatorCall(t, operator, "POST", `/accounts/${shop.username}/credits`, {
      wallet: "sms",
      amount: 50,
    });
    expect(topUp.status, topUp.text).toBe(200);
    const adjusted = await operatorCall(t, operator, "POST", `/accounts/${shop.username}/credits/adjust`, {
      wallet: "sms",
      amount: -5.5,
      reason: "double top-up",
    });
    expect(adjusted.status, adjusted.text).toBe(200);
    const moved = await call(t, "POST", "/api/v2/credits/transfer", {
      headers: keyOf(shop),
      json: { recipient_username: friend.username, amount: 10 },
    });
    expect(moved.status, moved.text).toBe(200);
    const scheduled = await call(t, "POST", "/api/v2/sms/schedule", {
      headers: keyOf(shop),
      json: { sender_id: "SWBRD", recipient: "9876543212", message: "Later", scheduled_at: "2099-01-01 10:00:00" },
    });
    expect(scheduled.status, scheduled.text).toBe(200);
    const cancelled = await call(t, "DELETE", `/api/v2/sms/schedule/${scheduled.body.data.message_id}`, {
      headers: keyOf(shop),
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const balance = (await call(t, "GET", "/api/v2/balance", { headers: keyOf(shop) })).body.data.balance;
    expect(balance).toBe(132.5);

    const whole = await own(t, shop);
    expect(sms(whole)).toEqual({
      wallet: "sms",
      opening: 0,
      topup: 150,
      debit: -3,
      refund: 1,
      transfer_in: 0,
      transfer_out: -10,
      adjustment: -5.5,
      closing: 132.5,
      entries: 8,
      balance: 132.5,
    });
    expect(whole.map((row) => row.wallet)).toEqual(["sms", "international", "whatsapp", "email", "voice"]);
    expect(whole.find((row) => row.wallet === "whatsapp")).toMatchObject({ topup: 7, closing: 7, balance: 7 });
    expect(whole.find((row) => row.wallet === "voice")).toMatchObject({ opening: 0, closing: 0, entries: 0 });

    // The account's 24 November: opening is what the first days left.
    expect(sms(await own(t, shop, "?from=2026-11-24"))).toMatchObject({
      opening: 98,
      topup: 50,
      debit: -1,
      refund: 1,
      transfer_out: -10,
      adjustment: -5.5,
      closing: 132.5,
      entries: 5,
    });
    // Up to the end of the 23rd: only the first day's entries; the balance now differs.
    expect(sms(await own(t, shop, "?to=2026-11-23"))).toMatchObject({
      opening: 0,
      topup: 100,
      debit: -2,
      closing: 98,
      entries: 3,
      balance: 132.5,
    });
    expect(sms(await own(t, friend))).toMatchObject({ topup: 1, transfer_in: 10, closing: 11, balance: 11 });

    // The operator reads the same figures.
    const operators = await operatorCall(
      t,
      operator,
      "GET",
      `/accounts/${shop.username}/ledger/totals?from=2026-11-24`,
    );
    expect(operators.status, operators.text).toBe(200);
    expect(operators.body.data).toEqual(await own(t, shop, "?from=2026-11-24"));
  });

  it("refuses a bad window, naming the parameter", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const shop = await buildAccount(t);
    const cases: [string, string][] = [
      ["?from=yesterday", "from"],
      ["?to=2026-13-40", "to"],
      ["?from=2026-11-24&to=2026-11-23", "to"],
      ["?since=2026-11-24", "since"],
      [`?from=${"9".repeat(41)}`, "from"],
    ];
    for (const [query, field] of cases) {
      const answer = await call(t, "GET", `/api/v2/credits/totals${query}`, { headers: keyOf(shop) });
      expect(answer.status, `${query}: ${answer.text}`).toBe(400);
      expect(answer.body.error).toMatchObject({ code: "invalid_request", field });
      const operators = await call(t, "GET", `/admin/api/accounts/${shop.username}/ledger/totals${query}`, {
        headers: keyOf(operator),
      });
      expect(operators.status, `${query}: ${operators.text}`).toBe(400);
      expect(operators.body.error).toMatchObject({ code: "invalid_request", field });
      // The operator reads the customer's dates: the refusal names the account's zone, not "your".
      if (query === "?from=yesterday") {
        expect(answer.body.message).toContain("(your account's time zone)");
        expect(operators.body.message).toContain("(the account's time zone, Asia/Kolkata)");
      }
    }
    const nobody = await call(t, "GET", "/admin/api/accounts/nobody_here/ledger/totals", { headers: keyOf(operator) });
    expect(nobody.status, nobody.text).toBe(404);
  });
});
