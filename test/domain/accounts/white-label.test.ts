// What a reseller's customer is told of its prices and of its parents, through the real server on
// both engines (decision 0150, audit F7): a sub-account's GET /api/v2/pricing and /api/v2/credits
// name its price "your price", never the operator's card nor its parent's markup; a send refused
// because a parent is short says "Credit not available." as when its own wallet is, naming no
// parent nor wallet, in every family. The parent (its sub-accounts list) and the operator (its
// API) still see the card and the markup; a top-level account still sees its own card's name.
import { afterEach, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { parsePriceCsv, replacePriceCard, setAccountPriceCard } from "../../../src/domain/accounts/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { legacy, operatorCall, sendParams } from "../../helpers/legacy.js";
import { auditLedger, subAccount } from "../../helpers/resellers.js";
import { keyOf, sendSms } from "../../helpers/sms.js";

describeEachEngine("a sub-account's view of its prices and parents", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, { clock, roles: ["api"] });

  afterEach(async () => auditLedger(gateway()));

  async function reseller(t: TestGateway, sms: number): Promise<TestAccount> {
    const cards = { "reseller-cost": "0.14", "india-retail": "0.2" };
    for (const [name, price] of Object.entries(cards)) {
      await replacePriceCard(t.db.store, clock, name, parsePriceCsv(`channel,route,prefix,price\nsms,*,*,${price}`));
    }
    const top = await buildAccount(t, { credits: { sms } });
    await setAccountPriceCard(t.db.store, clock, top.username, "reseller-cost");
    return top;
  }

  const quote = async (t: TestGateway, account: TestAccount) => {
    const answer = await call(t, "GET", "/api/v2/pricing?route=T&recipient=9876543210", { headers: keyOf(account) });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data;
  };
  const creditCard = async (t: TestGateway, account: TestAccount) => {
    const answer = await call(t, "GET", "/api/v2/credits", { headers: keyOf(account) });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data.price_card;
  };

  it("names a sub-account's price 'your price', not the operator's card nor the markup; the parent and operator see both", async () => {
    const t = gateway();
    const top = await reseller(t, 1000);
    const marked = await subAccount(t, top, { markup_percent: 25 });
    const carded = await subAccount(t, top, { price_card: "india-retail" });
    const deeper = await subAccount(t, marked, { markup_percent: 10 });

    expect(await quote(t, top)).toMatchObject({ price: 0.14, card: "reseller-cost" });
    expect(await creditCard(t, top)).toBe("reseller-cost");
    expect(await quote(t, marked)).toEqual({
      price: 0.175,
      unit: "sms_segment",
      prefix: "*",
      route: "T",
      card: "your price",
    });
    expect(await quote(t, carded)).toMatchObject({ price: 0.2, card: "your price" });
    expect(await quote(t, deeper)).toMatchObject({ price: 0.193, card: "your price" });
    for (const sub of [marked, carded, deeper]) expect(await creditCard(t, sub)).toBe("your price");

    const list = await call(t, "GET", "/api/v2/subaccounts", { headers: keyOf(top) });
    expect(list.body.data).toEqual([
      expect.objectContaining({ username: marked.username, price_card: null, markup_percent: 25 }),
      expect.objectContaining({ username: carded.username, price_card: "india-retail", markup_percent: null }),
    ]);
    const operator = await buildAccount(t, { role: "operator" });
    expect((await operatorCall(t, operator, "GET", `/accounts/${carded.username}`)).body.data.price_card).toBe(
      "india-retail",
    );
    expect((await operatorCall(t, operator, "GET", `/accounts/${marked.username}`)).body.data.price_card).toBe(
      "parent+25%",
    );
  });

  it("refuses a send its parent cannot pay for with the plain 'Credit not available.', naming no parent", async () => {
    const t = gateway();
    const top = await reseller(t, 0.1);
    const sub = await subAccount(t, top, { markup_percent: 25 }, { sms: 50 });
    const send = () =>
      sendSms(t, sub, { sender_id: "SWBRD", recipient: "9876543210", message: "Your OTP is 1234", route: "T" });

    const v2 = await send();
    expect(v2.status, v2.text).toBe(402);
    expect(v2.body.error.code).toBe("insufficient_credits");
    expect(v2.body.message).toBe("Credit not available.");
    expect(v2.text).not.toContain(top.username);
    expect(v2.text).not.toMatch(/wallet|parent|sub-account/i);
    const old = await legacy(t, "/httpapi/send", sendParams(sub, { phonenumber: "9876543210" }));
    expect(old.text).toContain("-12");
    expect(old.text).not.toContain(top.username);
    // Its refusal log says the same.
    const reasons = async () =>
      (await call(t, "GET", "/api/v2/refusals", { headers: keyOf(sub) })).body.data.map(
        (row: { reason: string }) => row.reason,
      );
    await expect.poll(reasons, { timeout: 10_000 }).toHaveLength(2);
    expect((await reasons()).join(" ")).not.toContain(top.username);
    // The parent's own wallet shows why.
    const balance = await call(t, "GET", "/api/v2/balance", { headers: keyOf(top) });
    expect(balance.body.data.balance).toBe(0.1);
  });
});
