// The operator's price for a sub-account, through the real server on both engines (decision 0165,
// operator audit O1, O2, O6, O9): PATCH /admin/api/accounts/{username} `price_card` on a
// sub-account is held to its parent's price as the parent's own choice is (400 naming price_card
// and the first unit below, nothing changed) and clears its markup; `default` is the built-in card
// in both APIs, null its parent's price; the audit entry records what the account was and is
// priced by, and nothing for a change to what it is; the sub-account's own log and export never
// name a card or the markup, while the parent's and the operator's stay whole and the operator's
// export still verifies.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { parsePriceCsv, replacePriceCard, setAccountPriceCard } from "../../../src/domain/accounts/index.js";
import { checkAuditExport } from "../../../src/domain/audit/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { subAccount } from "../../helpers/resellers.js";
import { keyOf } from "../../helpers/sms.js";

const CARDS: Record<string, string> = {
  // The parent's: 0.5 a segment, 0.7 to 9198… on T, 1.5 a voice unit.
  cost: "sms,*,*,0.5\nsms,T,9198,0.7\nvoice,V,*,1.5",
  "no-voice": "sms,*,*,0.8\nsms,T,9198,0.8",
  fine: "sms,*,*,0.8\nsms,T,9198,0.8\nvoice,*,*,3",
  "low-9198": "sms,*,*,0.8\nsms,T,9198,0.6\nvoice,*,*,3",
  dear: "sms,*,*,0.9\nvoice,*,*,3",
};

describeEachEngine("the operator's price for a sub-account", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, { clock, roles: ["api"] });

  async function tree(t: TestGateway) {
    for (const [name, rows] of Object.entries(CARDS)) {
      await replacePriceCard(t.db.store, clock, name, parsePriceCsv(`channel,route,prefix,price\n${rows}`));
    }
    const top = await buildAccount(t, { credits: { sms: 1000, voice: 1000 } });
    await setAccountPriceCard(t.db.store, clock, top.username, "cost");
    const sub = await subAccount(t, top, { markup_percent: 50 });
    const operator = await buildAccount(t, { role: "operator", sender: null });
    return { top, sub, operator };
  }
  const admin = (t: TestGateway, operator: TestAccount, method: string, path: string, json?: unknown) =>
    call(t, method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json === undefined ? {} : { json }),
    });
  const quote = async (t: TestGateway, account: TestAccount, channel = "sms") => {
    const route = channel === "sms" ? "T" : "V";
    const path = `/api/v2/pricing?channel=${channel}&route=${route}&recipient=919876543210`;
    const answer = await call(t, "GET", path, { headers: keyOf(account) });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data.price;
  };
  const priceLog = async (t: TestGateway, operator: TestAccount, username: string) =>
    (await admin(t, operator, "GET", `/audit?account=${username}&action=account.price_card`)).body.data.map(
      (entry: { before: unknown; after: unknown }) => [entry.before, entry.after],
    );

  it("holds the operator's card for a sub-account to its parent's price, and clears the markup", async () => {
    const t = gateway();
    const { top, sub, operator } = await tree(t);
    expect(await quote(t, sub, "voice")).toBe(2.25);
    const voice = "a voice unit on route V to numbers no other prefix names (prefix *) at 1";
    for (const [card, name, words, parentPrice] of [
      ["no-voice", "no-voice", voice, "1.5"],
      ["default", "default", voice, "1.5"],
      ["LOW-9198", "low-9198", "an SMS segment on route T to prefix 9198 at 0.6", "0.7"],
    ] as const) {
      const refused = await admin(t, operator, "PATCH", `/accounts/${sub.username}`, { price_card: card });
      expect(refused.status, `${card}: ${refused.text}`).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "invalid_request", field: "price_card" });
      expect(refused.body.message).toBe(
        `The price card "${name}" prices ${words}, below its parent ${top.username}'s price there (${parentPrice}): a sub-account's card may not price any destination below what it costs its parent.`,
      );
    }
    const unknown = await admin(t, operator, "PATCH", `/accounts/${sub.username}`, { price_card: "nosuch" });
    expect(unknown.status, unknown.text).toBe(404);
    const shown = await admin(t, operator, "GET", `/accounts/${sub.username}`);
    expect(shown.body.data).toMatchObject({ price_card: "parent+50%", markup_percent: 50 });
    expect(await priceLog(t, operator, sub.username)).toEqual([]);

    const carded = await admin(t, operator, "PATCH", `/accounts/${sub.username}`, { price_card: "Fine" });
    expect(carded.status, carded.text).toBe(200);
    expect(carded.body.data).toMatchObject({ price_card: "fine", markup_percent: null, parent: top.username });
    expect(await quote(t, sub, "voice")).toBe(3);
    const listed = await call(t, "GET", "/api/v2/subaccounts", { headers: keyOf(top) });
    expect(listed.body.data[0]).toMatchObject({ username: sub.username, price_card: "fine", markup_percent: null });
  });

  it("reads `default` as the built-in card in both APIs and null as the parent's price; logs the true change once", async () => {
    const t = gateway();
    const { top, sub, operator } = await tree(t);
    // The parent on 1.5 a voice unit: `default` (1) is below it, for the parent and the operator alike.
    for (const answer of [
      await call(t, "PATCH", `/api/v2/subaccounts/${sub.username}`, {
        headers: keyOf(top),
        json: { price_card: "default" },
      }),
      await admin(t, operator, "PATCH", `/accounts/${sub.username}`, { price_card: "default" }),
    ]) {
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.message).toContain(
        "prices a voice unit on route V to numbers no other prefix names (prefix *) at 1, below",
      );
    }
    await replacePriceCard(t.db.store, clock, "cost", parsePriceCsv("channel,route,prefix,price\nsms,*,*,0.5"));
    const same = await admin(t, operator, "PATCH", `/accounts/${sub.username}`, { price_card: null });
    expect(same.body.data).toMatchObject({ price_card: "parent+50%", markup_percent: 50 });
    expect(await priceLog(t, operator, sub.username)).toEqual([]);

    const byOperator = await admin(t, operator, "PATCH", `/accounts/${sub.username}`, { price_card: "DEFAULT" });
    expect(byOperator.status, byOperator.text).toBe(200);
    expect(byOperator.body.data).toMatchObject({ price_card: "default", markup_percent: null });
    expect(await quote(t, sub)).toBe(1);
    const byParent = await call(t, "PATCH", `/api/v2/subaccounts/${sub.username}`, {
      headers: keyOf(top),
      json: { price_card: "default" },
    });
    expect(byParent.body.data).toMatchObject({ price_card: "default", markup_percent: null });
    expect((await admin(t, operator, "PATCH", `/accounts/${sub.username}`, { price_card: "default" })).status).toBe(
      200,
    );
    const back = await admin(t, operator, "PATCH", `/accounts/${sub.username}`, { price_card: null });
    expect(back.body.data).toMatchObject({ price_card: "parent+0%", markup_percent: 0 });
    expect(await quote(t, sub)).toBe(0.5);
    const carded = await admin(t, operator, "PATCH", `/accounts/${sub.username}`, { price_card: "fine" });
    expect(carded.status, carded.text).toBe(200);
    expect(await priceLog(t, operator, sub.username)).toEqual([
      [
        { price_card: "parent+0%", markup_percent: 0 },
        { price_card: "fine", markup_percent: null },
      ],
      [
        { price_card: "default", markup_percent: null },
        { price_card: "parent+0%", markup_percent: 0 },
      ],
      [
        { price_card: "parent+50%", markup_percent: 50 },
        { price_card: "default", markup_percent: null },
      ],
    ]);

    // An account without parent: `default` and null are the same, the built-in card.
    const alone = await buildAccount(t);
    for (const card of ["default", null, ""]) {
      const answer = await admin(t, operator, "PATCH", `/accounts/${alone.username}`, { price_card: card });
      expect(answer.body.data).toMatchObject({ price_card: "default", markup_percent: null });
    }
    expect(await priceLog(t, operator, alone.username)).toEqual([]);
    // A sub-account made without a markup is on its parent's price already: null changes nothing.
    const bare = `${top.username}_bare`;
    const made = await admin(t, operator, "POST", "/accounts", {
      username: bare,
      password: "longenough",
      parent: top.username,
    });
    expect(made.status, made.text).toBe(201);
    const unchanged = await admin(t, operator, "PATCH", `/accounts/${bare}`, { price_card: null });
    expect(unchanged.body.data).toMatchObject({ price_card: "parent+0%", markup_percent: null });
    expect(await priceLog(t, operator, bare)).toEqual([]);
  });

  it("shows a sub-account its own price changes without card names or markup; the parent and operator read them whole", async () => {
    const t = gateway();
    const { top, sub, operator } = await tree(t);
    await call(t, "PATCH", `/api/v2/subaccounts/${sub.username}`, {
      headers: keyOf(top),
      json: { price_card: "fine" },
    });
    await admin(t, operator, "PATCH", `/accounts/${sub.username}`, { price_card: "dear" });
    const made = await admin(t, operator, "POST", "/accounts", {
      username: `${sub.username}_op`,
      password: "longenough",
      parent: top.username,
      markup_percent: 30,
    });
    expect(made.status, made.text).toBe(201);

    const own = await call(t, "GET", "/api/v2/audit?limit=50", { headers: keyOf(sub) });
    expect(own.status, own.text).toBe(200);
    const ownExport = await call(t, "GET", "/api/v2/audit/export?format=jsonl", { headers: keyOf(sub) });
    expect(ownExport.status, ownExport.text).toBe(200);
    const opOwn = await call(t, "GET", "/api/v2/audit?limit=50", {
      headers: { authorization: `Bearer ${made.body.data.api_key}` },
    });
    expect(opOwn.status, opOwn.text).toBe(200);
    for (const text of [own.text, ownExport.text, opOwn.text]) {
      for (const secret of ["fine", "dear", "markup", "parent+", 'parent"']) expect(text, secret).not.toContain(secret);
    }
    expect(opOwn.text).not.toContain(top.username);
    type Entry = { action: string; before: unknown; after: unknown };
    const priced = (entries: Entry[]) =>
      entries
        .filter((e) => ["account.price_card", "subaccount.update", "account.create"].includes(e.action))
        .map((e) => [e.action, e.before, e.after]);
    expect(priced(own.body.data)).toEqual([
      ["account.price_card", { price_card: "your price" }, { price_card: "your price" }],
      ["subaccount.update", { price_card: "your price" }, { price_card: "your price" }],
      ["account.create", null, { price_card: "your price" }],
    ]);
    expect(priced(opOwn.body.data)).toEqual([
      ["account.create", null, expect.objectContaining({ price_card: "your price", username: `${sub.username}_op` })],
    ]);
    const parentLog = await call(t, "GET", "/api/v2/audit?action=subaccount.update", { headers: keyOf(top) });
    expect(parentLog.body.data[0]).toMatchObject({
      before: { price_card: null, markup_percent: 50 },
      after: { price_card: "fine", markup_percent: null },
    });
    expect(await priceLog(t, operator, sub.username)).toEqual([[{ price_card: "fine" }, { price_card: "dear" }]]);
    const exported = await admin(t, operator, "GET", "/audit/export?format=jsonl");
    const lines = exported.text.split("\n").filter((line) => line !== "");
    const report = checkAuditExport(lines);
    expect(report.broken).toBeUndefined();
    expect(report.entries).toBe(lines.length);
    expect(exported.text).toContain('"after":{"price_card":"dear"}');
  });
});
