// A parent's card for its sub-account, and its changes to one, through the real server on both
// engines (decision 0149, audit F2): a card is named in any case and never one whose first upload
// is under way; a card pricing any destination, route or later moment below what it costs the
// parent (its own card, or its parent's price marked up) is refused naming where and both
// prices; PATCH /api/v2/subaccounts/{username} changes the price (the same checks, one mode) and
// suspends or reactivates the sub-account and its tree, audited with only what changed; another
// account's sub-account is a 404; a developer may not; an operator's block is the operator's.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { parsePriceCsv, replacePriceCard, setAccountPriceCard } from "../../../src/domain/accounts/index.js";
import { addConsoleUser, callAs } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { subAccount } from "../../helpers/resellers.js";
import { keyOf, sendSms } from "../../helpers/sms.js";

const CARDS: Record<string, string> = {
  // The parent's: 0.5 a segment on every route, 0.7 to 9198… on T, 2 a voice unit.
  cost: "sms,*,*,0.5\nsms,T,9198,0.7\nvoice,V,*,2",
  cheap: "sms,*,*,0.01",
  retail: "sms,*,*,0.6\nvoice,*,*,3",
  "no-voice": "sms,*,*,0.8",
  later: "sms,*,*,0.8\nvoice,*,*,3\nsms,P,91,0.3,2027-01-01T00:00:00Z",
  fine: "sms,*,*,0.8\nsms,T,9198,0.7\nvoice,*,*,3",
  // A parent priced 0.12 in India and 0.75 to 44…, on any route; its sub-accounts' cards written
  // with route I rows for abroad: a T, P or PS number is always 91 and an Indian mobile.
  "cost-abroad": "sms,*,*,0.12\nsms,*,44,0.75",
  "retail-abroad": "sms,*,*,0.2\nsms,I,44,0.9",
  "cheap-abroad": "sms,T,91,0.5\nsms,*,*,0.1",
};

describeEachEngine("a parent's price and status for its sub-accounts", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, { clock, roles: ["api"] });

  async function reseller(t: TestGateway): Promise<TestAccount> {
    for (const [name, rows] of Object.entries(CARDS)) {
      const lines = rows.split("\n").map((row) => (row.split(",").length === 4 ? `${row},` : row));
      const csv = ["channel,route,prefix,price,effective_from", ...lines].join("\n");
      await replacePriceCard(t.db.store, clock, name, parsePriceCsv(csv));
    }
    const top = await buildAccount(t, { credits: { sms: 1000, voice: 1000 } });
    await setAccountPriceCard(t.db.store, clock, top.username, "cost");
    return top;
  }

  const create = (t: TestGateway, parent: TestAccount, body: Record<string, unknown>) =>
    call(t, "POST", "/api/v2/subaccounts", {
      headers: keyOf(parent),
      json: { username: `sub_${Math.random().toString(36).slice(2, 10)}`, password: "pw-sub-account", ...body },
    });
  const patch = (t: TestGateway, caller: TestAccount, username: string, json: Record<string, unknown>) =>
    call(t, "PATCH", `/api/v2/subaccounts/${username}`, { headers: keyOf(caller), json });

  it("names a card in any case, and never one whose first upload is under way", async () => {
    const t = gateway();
    const top = await reseller(t);
    const made = await create(t, top, { price_card: "FINE" });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data.price_card).toBe("fine");
    const now = clock.now().getTime();
    await t.db.store.db
      .insertInto("price_cards")
      .values({ name: "uploading", created_at: now, updated_at: now, generation: null })
      .execute();
    const hidden = await create(t, top, { price_card: "uploading" });
    expect(hidden.status, hidden.text).toBe(400);
    expect(hidden.body.error).toMatchObject({ code: "invalid_request", field: "price_card" });
    expect(hidden.body.message).toBe('No price card named "uploading".');
    const both = await create(t, top, { price_card: "fine", markup_percent: 5 });
    expect(both.status, both.text).toBe(400);
    expect(both.body.error.field).toBe("price_card");
  });

  it("refuses a card that prices any destination, route or later moment below the parent's own price", async () => {
    const t = gateway();
    const top = await reseller(t);
    const before = await t.db.store.db.selectFrom("accounts").select("id").execute();
    for (const [card, words] of [
      [
        "cheap",
        "an SMS segment on route T to numbers no other prefix names (prefix *) at 0.01, below this account's own price there (0.5)",
      ],
      ["retail", "an SMS segment on route T to prefix 9198 at 0.6, below this account's own price there (0.7)"],
      [
        "no-voice",
        "a voice unit on route V to numbers no other prefix names (prefix *) at 1, below this account's own price there (2)",
      ],
      [
        "later",
        "an SMS segment on route P to prefix 91 at 0.3 from 2027-01-01T00:00:00Z, below this account's own price there (0.5)",
      ],
    ] as const) {
      const refused = await create(t, top, { price_card: card });
      expect(refused.status, `${card}: ${refused.text}`).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "invalid_request", field: "price_card" });
      expect(refused.body.message).toBe(
        `The price card "${card}" prices ${words}: a sub-account's card may not price any destination below what it costs its parent.`,
      );
    }
    expect(await t.db.store.db.selectFrom("accounts").select("id").execute()).toHaveLength(before.length);

    // A sub-account at +10 % costs 0.55, 0.77 to 9198… on T and 2.2 a voice unit: its own
    // sub-account's card is held to that, not to the top's card.
    const mid = await subAccount(t, top, { markup_percent: 10 });
    const leaf = await create(t, mid, { price_card: "fine" });
    expect(leaf.status, leaf.text).toBe(400);
    expect(leaf.body.message).toContain(
      "on route T to prefix 9198 at 0.7, below this account's own price there (0.77)",
    );
    expect((await create(t, mid, { markup_percent: 0 })).status).toBe(201);
    expect((await create(t, top, { price_card: "fine" })).status).toBe(201);
  });

  it("compares routes T, P and PS only where an Indian mobile can go", async () => {
    const t = gateway();
    await reseller(t);
    const top = await buildAccount(t, { credits: { sms: 1000 } });
    await setAccountPriceCard(t.db.store, clock, top.username, "cost-abroad");
    // Route T to 44… (0.2 by the card's * row, 0.75 the parent's) is no destination: accepted.
    const made = await create(t, top, { price_card: "retail-abroad" });
    expect(made.status, made.text).toBe(201);
    // The first unit named below is one a send can reach (not route T to numbers 91 does not cover).
    const refused = await create(t, top, { price_card: "cheap-abroad" });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.message).toContain(
      "prices an SMS segment on route I to numbers no other prefix names (prefix *) at 0.1, below this account's own price there (0.12)",
    );
  });

  it("changes a sub-account's price with the same checks, audited with only what changed", async () => {
    const t = gateway();
    const top = await reseller(t);
    const sub = await subAccount(t, top, { markup_percent: 10 });
    const quote = async () =>
      (await call(t, "GET", "/api/v2/pricing?route=T&recipient=9876543210", { headers: keyOf(sub) })).body.data;
    expect(await quote()).toMatchObject({ price: 0.77, card: "your price" });

    const cheap = await patch(t, top, sub.username, { price_card: "cheap" });
    expect(cheap.status, cheap.text).toBe(400);
    expect(cheap.body.error).toMatchObject({ code: "invalid_request", field: "price_card" });
    expect(cheap.body.message).toContain("at 0.01, below this account's own price there (0.5)");
    const both = await patch(t, top, sub.username, { price_card: "fine", markup_percent: 5 });
    expect(both.status, both.text).toBe(400);
    expect((await patch(t, top, sub.username, {})).status).toBe(400);
    expect(await quote()).toMatchObject({ price: 0.77 });

    const carded = await patch(t, top, sub.username, { price_card: "Fine" });
    expect(carded.status, carded.text).toBe(200);
    expect(carded.body.data).toMatchObject({ username: sub.username, price_card: "fine", markup_percent: null });
    expect(await quote()).toMatchObject({ price: 0.7, card: "your price" });
    const marked = await patch(t, top, sub.username, { markup_percent: 20 });
    expect(marked.body.data).toMatchObject({ price_card: null, markup_percent: 20, status: "active" });
    expect(await quote()).toMatchObject({ price: 0.84, card: "your price" });
    expect((await patch(t, top, sub.username, { markup_percent: 20 })).status).toBe(200);

    const log = await call(t, "GET", "/api/v2/audit?action=subaccount.update", { headers: keyOf(top) });
    expect(log.body.data.map((e: { before: unknown; after: unknown }) => [e.before, e.after])).toEqual([
      [
        { price_card: "fine", markup_percent: null },
        { price_card: null, markup_percent: 20 },
      ],
      [
        { price_card: null, markup_percent: 10 },
        { price_card: "fine", markup_percent: null },
      ],
    ]);
    expect(log.body.data[0]).toMatchObject({ actor: top.username, target: `account ${sub.username}` });
  });

  it("suspends a sub-account and its tree, and reactivates it; never one the operator blocked", async () => {
    const t = gateway();
    const top = await reseller(t);
    const sub = await subAccount(t, top, { markup_percent: 10 });
    const leaf = await subAccount(t, sub, { markup_percent: 10 }, { sms: 10 });
    const send = (account: TestAccount) =>
      sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "Your OTP is 1234", route: "T" });
    expect((await send(leaf)).status).toBe(200);

    const suspended = await patch(t, top, sub.username, { status: "suspended" });
    expect(suspended.status, suspended.text).toBe(200);
    expect(suspended.body.data.status).toBe("inactive");
    for (const account of [sub, leaf]) {
      const refused = await send(account);
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.error.code).toBe("account_inactive");
    }
    expect((await patch(t, top, sub.username, { status: "active" })).body.data.status).toBe("active");
    expect((await send(leaf)).status).toBe(200);
    const log = await call(t, "GET", "/api/v2/audit?action=subaccount.update", { headers: keyOf(top) });
    expect(log.body.data.map((e: { before: unknown; after: unknown }) => [e.before, e.after])).toEqual([
      [{ status: "inactive" }, { status: "active" }],
      [{ status: "active" }, { status: "inactive" }],
    ]);

    const operator = await buildAccount(t, { role: "operator" });
    const blocked = await operatorCall(t, operator, "PATCH", `/accounts/${sub.username}`, { status: "blocked" });
    expect(blocked.status, blocked.text).toBe(200);
    const lifted = await patch(t, top, sub.username, { status: "active" });
    expect(lifted.status, lifted.text).toBe(403);
    expect(lifted.body.error).toMatchObject({ code: "forbidden", field: "status" });
    expect((await send(sub)).status).toBe(403);
  });

  it("answers 404 for any account but the caller's own sub-account, and refuses a developer", async () => {
    const t = gateway();
    const top = await reseller(t);
    const sub = await subAccount(t, top, { markup_percent: 10 });
    const other = await buildAccount(t);
    for (const [caller, name] of [
      [other, sub.username],
      [sub, top.username],
      [top, "nosuch"],
      [top, top.username],
    ] as const) {
      const answer = await patch(t, caller, name, { status: "suspended" });
      expect(answer.status, `${caller.username} ${name}: ${answer.text}`).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
    }
    const session = await addConsoleUser(t, top, "pdev", "developer");
    const dev = await callAs(t, session, "PATCH", `/api/v2/subaccounts/${sub.username}`, {
      json: { status: "suspended" },
    });
    expect(dev.status, dev.text).toBe(403);
    expect(dev.body.error.code).toBe("insufficient_role");
    const row = await t.db.store.db.selectFrom("accounts").select("status").where("id", "=", sub.id).executeTakeFirst();
    expect(row?.status).toBe("active");
  });
});
