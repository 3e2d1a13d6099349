// Price cards through the real server, on both engines: a card with +44, +1, 9198 and * rows
// charges exactly its prices (milli-credits read from the wallet) on v2, the legacy GET API and
// the SMPP server; the account's own route code before *, then the longest prefix; the row in
// force by effective_from (the clock moves past a switch); a bad CSV line refused with its number
// and nothing imported; PUT validation naming rows[i].field; the v2 quote; accounts without a
// card unchanged (1 credit); a bulk job priced per recipient and refunded at the prices charged.
import { afterEach, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import type { GatewayError } from "../../../src/base/core/errors.js";
import { approveCallerIdFor } from "../../../src/channels/voice/index.js";
import { parsePriceCsv, replacePriceCard } from "../../../src/domain/accounts/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, operatorCall, sendParams } from "../../helpers/legacy.js";
import { auditLedger } from "../../helpers/resellers.js";
import { keyOf, sendSms } from "../../helpers/sms.js";
import { boundEsme, smppAccount } from "../smpp-server/client.js";

const CARD = [
  "channel,route,prefix,price,effective_from",
  "sms,*,*,2,",
  "sms,*,9198,0.25,",
  "sms,*,91,0.2,",
  "sms,P,91,0.15,",
  "sms,*,44,0.06,2026-01-01",
  "sms,*,44,0.05,2026-11-01T00:00:00Z",
  "sms,*,44,0.07,2026-12-01T00:00:00Z",
  "sms,*,447,0.04,",
  "sms,I,1,0.03,",
  "sms,*,1,0.09,",
  "voice,V,91,1.5,",
].join("\n");

async function milli(t: TestGateway, account: TestAccount, wallet = "sms"): Promise<number> {
  const row = await t.db.store.db
    .selectFrom("wallets")
    .select("balance")
    .where("account_id", "=", account.id)
    .where("wallet", "=", wallet)
    .executeTakeFirstOrThrow();
  return Number(row.balance);
}

describeEachEngine("price cards", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, { clock, roles: ["api"], env: { SMPP_SERVER_PORT: "auto" } });
  // Every wallet equals the sum of its ledger entries after each test, at every price.
  afterEach(async () => auditLedger(gateway()));
  let operator: TestAccount;
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);

  async function cardAccount(card: string | null = "retail") {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 1000, international: 1000, voice: 100 } });
    await op("PATCH", `/accounts/${account.username}`, {
      international_enabled: true,
      routes: ["T", "P", "I"],
      ...(card ? { price_card: card } : {}),
    });
    return account;
  }

  it("imports a card from CSV and sets it on an account; an unknown card is refused", async () => {
    const t = gateway();
    clock.set("2026-11-22T06:30:00Z");
    operator = await buildAccount(t, { role: "operator" });
    expect(await replacePriceCard(t.db.store, clock, "retail", parsePriceCsv(CARD))).toBe(11);
    const shown = await op("GET", "/price-cards/retail");
    expect(shown.body.data.rows).toHaveLength(11);
    // By channel, prefix, route and effective_from (`always` first), whatever the file's order.
    expect(shown.body.data.rows.map((r: { prefix: string; route: string }) => `${r.prefix}${r.route}`)).toEqual([
      "**",
      "1*",
      "1I",
      "44*",
      "44*",
      "44*",
      "447*",
      "91*",
      "91P",
      "9198*",
      "91V",
    ]);
    expect(shown.body.data.rows[9]).toEqual({
      channel: "sms",
      route: "*",
      prefix: "9198",
      price: 0.25,
      effective_from: null,
    });
    const list = await op("GET", "/price-cards");
    expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(["default", "retail"]);
    const account = await buildAccount(t);
    const unknown = await call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { price_card: "nosuch", status: "inactive" },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('No price card named "nosuch"');
    // Nothing else changed.
    expect((await op("GET", `/accounts/${account.username}`)).body.data).toMatchObject({
      status: "active",
      price_card: "default",
    });
  });

  it("charges the card's prices on v2, the legacy GET API and the SMPP server", async () => {
    const t = gateway();
    const account = await cardAccount();
    // Route P from its own sender ID SWBRD needs promo sender (decision 0183).
    await op("PATCH", `/accounts/${account.username}`, { promo_sender_enabled: true });
    const charged = async (send: () => Promise<unknown>, wallet = "sms") => {
      const before = await milli(t, account, wallet);
      await send();
      return before - (await milli(t, account, wallet));
    };
    const v2 = (recipient: string, route = "T", message = "Your OTP is 1234") =>
      sendSms(t, account, { sender_id: "SWBRD", recipient, message, route }).then((r) => {
        expect(r.status, r.text).toBe(200);
        return r.body.data.credits as number;
      });
    // Longest prefix: 9198 before 91 before *.
    expect(await charged(() => v2("9876543210"))).toBe(250);
    expect(await charged(() => v2("7012345678"))).toBe(200);
    // The account's own route code before *: P's 91 row beats *'s longer 9198.
    expect(await charged(() => v2("9876543210", "P"))).toBe(150);
    // Two segments: twice the unit price; the answer's credits say the same.
    let credits = 0;
    expect(
      await charged(async () => {
        credits = await v2("9876543210", "T", "x".repeat(200));
      }),
    ).toBe(500);
    expect(credits).toBe(0.5);
    // International: 447 before 44; I's own 1 row before *'s 1; the catch-all row.
    expect(await charged(() => v2("+447911123456", "I"), "international")).toBe(40);
    expect(await charged(() => v2("+442071838750", "I"), "international")).toBe(50);
    expect(await charged(() => v2("+12025550123", "I"), "international")).toBe(30);
    expect(await charged(() => v2("+33612345678", "I"), "international")).toBe(2000);

    // The legacy GET API, and its balance.
    const sent = await charged(async () => {
      const answer = await legacy(t, "/httpapi/send", sendParams(account, { phonenumber: "9876543210" }));
      expect(answer.status, answer.text).toBe(200);
    });
    expect(sent).toBe(250);
    const balance = (await milli(t, account)) / 1000;
    expect((await legacy(t, "/api/getcredits", credentials(account))).text).toBe(String(balance));

    // The SMPP server.
    const esme = await boundEsme(t, account, "transmitter");
    try {
      const smpp = await charged(async () => {
        const pdu = await esme.submit({ source_addr: "SWBRD", destination_addr: "9876543210", short_message: "Hi" });
        expect(pdu.command_status).toBe(0);
      });
      expect(smpp).toBe(250);
    } finally {
      esme.session.close();
    }
  });

  it("charges a voice call by the card's price per unit (route V)", async () => {
    const t = gateway();
    const account = await cardAccount();
    await approveCallerIdFor({ store: t.db.store, clock, actor: cliActor() }, account.username, "+918047110000");
    const before = await milli(t, account, "voice");
    const placed = await call(t, "POST", "/api/v2/voice/calls", {
      headers: keyOf(account),
      json: { from: "+918047110000", to: "9876543210", text: "Your OTP is 1234." },
    });
    expect(placed.status, placed.text).toBe(201);
    // One unit (a short text) at the card's voice 91 price.
    expect(before - (await milli(t, account, "voice"))).toBe(1500);
  });

  it("takes the row in force: a later effective_from applies once its time has come", async () => {
    const t = gateway();
    const account = await cardAccount();
    const send = async () => {
      const before = await milli(t, account, "international");
      const r = await sendSms(t, account, {
        sender_id: "SWBRD",
        recipient: "+442071838750",
        message: "Hi",
        route: "I",
      });
      expect(r.status, r.text).toBe(200);
      return before - (await milli(t, account, "international"));
    };
    clock.set("2026-10-15T00:00:00Z");
    expect(await send()).toBe(60);
    clock.set("2026-11-22T06:30:00Z");
    expect(await send()).toBe(50);
    clock.set("2026-12-01T00:00:00Z");
    expect(await send()).toBe(70);
    clock.set("2026-11-22T06:30:00Z");
  });

  it("answers a quote in the v2 envelope, and refuses bad parameters naming the field", async () => {
    const t = gateway();
    const account = await cardAccount();
    const quote = (query: string) => call(t, "GET", `/api/v2/pricing?${query}`, { headers: keyOf(account) });
    const uk = await quote("channel=sms&route=I&recipient=%2B447911123456");
    expect(uk.status, uk.text).toBe(200);
    expect(uk.body).toEqual({
      status: "success",
      data: { price: 0.04, unit: "sms_segment", prefix: "447", route: "I", card: "retail" },
    });
    expect((await quote("recipient=9876543210")).body.data).toMatchObject({ price: 0.25, prefix: "9198" });
    const credits = await call(t, "GET", "/api/v2/credits", { headers: keyOf(account) });
    expect(credits.body.data.price_card).toBe("retail");
    expect((await quote("route=P&recipient=9876543210")).body.data).toMatchObject({ price: 0.15, prefix: "91" });
    expect((await quote("route=I&recipient=%2B33612345678")).body.data).toMatchObject({ price: 2, prefix: "*" });
    expect((await quote("channel=voice&recipient=9876543210")).body.data).toMatchObject({
      price: 1.5,
      unit: "voice_unit",
      prefix: "91",
    });
    for (const [query, field] of [
      ["channel=fax&recipient=9876543210", "channel"],
      ["route=Z&recipient=9876543210", "route"],
      ["route=I&recipient=9876543210", "recipient"],
      ["route=T", "recipient"],
      ["recipient=12", "recipient"],
    ] as const) {
      const bad = await quote(query);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error.field, query).toBe(field);
    }
    expect((await quote("recipient=9876543210&colour=red")).status).toBe(400);
  });

  it("leaves accounts without a card at 1 credit a unit", async () => {
    const t = gateway();
    const account = await cardAccount(null);
    const before = await milli(t, account, "international");
    const r = await sendSms(t, account, { sender_id: "SWBRD", recipient: "+447911123456", message: "Hi", route: "I" });
    expect(r.body.data.credits).toBe(1);
    expect(before - (await milli(t, account, "international"))).toBe(1000);
    const quote = await call(t, "GET", "/api/v2/pricing?recipient=9876543210", { headers: keyOf(account) });
    expect(quote.body.data).toMatchObject({ price: 1, prefix: "*", card: "default" });
    const credits = await call(t, "GET", "/api/v2/credits", { headers: keyOf(account) });
    expect(credits.body.data.price_card).toBe("default");
  });

  it("prices a bulk job per recipient before accepting it, and refunds it at the prices charged", async () => {
    const t = gateway();
    const account = await cardAccount();
    const before = await milli(t, account);
    const sent = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: keyOf(account),
      json: {
        sender_id: "SWBRD",
        message: "Stock take tonight",
        route: "T",
        recipients: ["9876543210", "9876543211", "7012345678"],
      },
    });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.data.credits).toBe(0.7);
    expect(before - (await milli(t, account))).toBe(700);
    const cancelled = await call(t, "POST", `/api/v2/bulk-jobs/${sent.body.data.job_id}/cancel`, {
      headers: keyOf(account),
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data).toMatchObject({ cancelled: 3, credits_refunded: 0.7 });
    expect(await milli(t, account)).toBe(before);
  });

  it("refuses a bad CSV line with its number, and a bad PUT row with its index and field: nothing written", async () => {
    const refusal = (text: string) => {
      try {
        parsePriceCsv(text);
      } catch (error) {
        return (error as GatewayError).message;
      }
      return "accepted";
    };
    expect(refusal(`${CARD}\nsms,T,44x,0.1,`)).toMatch(/^Line 13: prefix must be/);
    expect(refusal("channel,route,prefix,price\nsms,T,44,0.1\nsms,T,44,0.0001")).toMatch(/^Line 3: .*decimals/);
    expect(refusal("channel,route,prefix,price\nfax,T,44,1")).toMatch(/^Line 2: channel must be sms or voice/);
    expect(refusal("channel,route,prefix,price\nvoice,T,44,1")).toMatch(/^Line 2: route of a voice row/);
    expect(refusal("channel,route,prefix,price\nsms,T,44,1,2026-13-01")).toMatch(/^Line 2: 5 fields/);
    expect(refusal("channel,route,prefix,price,effective_from\nsms,T,44,1,soon")).toMatch(/^Line 2: effective_from/);
    expect(refusal("channel,route,prefix,price\nsms,T,44,1\n\nsms,T,44,2")).toMatch(/^Line 4: the same .* line 2/);
    expect(refusal("chan,route,prefix,price\nsms,T,44,1")).toMatch(/^Line 1: the header/);

    const t = gateway();
    const put = (rows: unknown) =>
      call(t, "PUT", "/admin/api/price-cards/retail", {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        json: { rows },
      });
    const good = { channel: "sms", route: "T", prefix: "44", price: 0.1 };
    for (const [rows, field] of [
      [[good, { ...good, prefix: "+44a" }], "rows[1].prefix"],
      [[{ ...good, price: -1 }], "rows[0].price"],
      [[{ ...good, price: 0.0005 }], "rows[0].price"],
      [[good, { ...good, route: "X" }], "rows[1].route"],
      [[{ ...good, channel: "fax" }], "rows[0].channel"],
      [[{ ...good, effective_from: "tomorrow" }], "rows[0].effective_from"],
      [[good, good], "rows[1]"],
      // JSON as typed, no coercion (a CSV cell is text; a JSON price is a number).
      [[{ ...good, price: "0.25" }], "rows[0].price"],
      [[good, { ...good, prefix: 44 }], "rows[1].prefix"],
      [[{ ...good, effective_from: 20261201 }], "rows[0].effective_from"],
    ] as const) {
      const bad = await put(rows);
      expect(bad.status, JSON.stringify(rows)).toBe(400);
      expect(bad.body.error.field).toBe(field);
    }
    expect((await put([{ ...good, colour: "red" }])).status).toBe(400);
    expect((await op("GET", "/price-cards/retail")).body.data.rows).toHaveLength(11);
    const written = await op("PUT", "/price-cards/wholesale", {
      rows: [good, { ...good, prefix: "*", price: 0.5, effective_from: "2026-12-01" }],
    });
    expect(written.body.data).toEqual({ name: "wholesale", rows: 2, below_parent: [] });
    expect((await op("GET", "/price-cards/wholesale")).body.data.rows[0]).toEqual({
      channel: "sms",
      route: "T",
      prefix: "*",
      price: 0.5,
      effective_from: "2026-12-01T00:00:00Z",
    });
    const stringPrice = await put([{ ...good, price: "0.25" }]);
    expect(stringPrice.body.message).toBe('rows[0].price must be a number of credits (got "0.25"); nothing written.');
    const tooFine = await put([{ ...good, price: 0.0005 }]);
    expect(tooFine.body.message).not.toContain(".;");

    // The audit entry says what changed, in credits: added, repriced (with the price it was), removed.
    await op("PUT", "/price-cards/wholesale", {
      rows: [
        { ...good, price: 0.12 },
        { ...good, prefix: "91", price: 0.2 },
      ],
    });
    const audit = await op("GET", "/audit?action=price_card.save&limit=1");
    expect(audit.body.data[0]).toMatchObject({
      target: "price card wholesale",
      before: { rows: 2 },
      after: {
        rows: 2,
        added: [{ channel: "sms", route: "T", prefix: "91", price: 0.2, effective_from: null }],
        changed: [{ channel: "sms", route: "T", prefix: "44", price: 0.12, was: 0.1, effective_from: null }],
        removed: [{ channel: "sms", route: "T", prefix: "*", price: 0.5, effective_from: "2026-12-01T00:00:00Z" }],
      },
    });
    const builtIn = await call(t, "PUT", "/admin/api/price-cards/default", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { rows: [good] },
    });
    expect(builtIn.status).toBe(400);
  });

  it("follows a card replaced while the gateway runs", async () => {
    const t = gateway();
    const account = await cardAccount();
    await op("PUT", "/price-cards/moving", { rows: [{ channel: "sms", route: "*", prefix: "91", price: 0.3 }] });
    await op("PATCH", `/accounts/${account.username}`, { price_card: "moving" });
    const quote = async () =>
      (await call(t, "GET", "/api/v2/pricing?recipient=9876543210", { headers: keyOf(account) })).body.data.price;
    expect(await quote()).toBe(0.3);
    await op("PUT", "/price-cards/moving", { rows: [{ channel: "sms", route: "*", prefix: "91", price: 0.35 }] });
    expect(await quote()).toBe(0.35);
    await op("PATCH", `/accounts/${account.username}`, { price_card: null });
    expect(await quote()).toBe(1);
  });
});
