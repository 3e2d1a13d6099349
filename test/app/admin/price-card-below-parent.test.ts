// A card changed after it was given may leave a sub-account priced below its parent (decision 0168,
// price audit 1 and 3), through the real server on both engines: raising a reseller's card (PUT
// as CSV or JSON) is saved, and its answer names the sub-accounts it puts below their parent with
// the units and both prices; afterwards the parent's GET /api/v2/subaccounts flags them, and the
// operator's account detail shows them (the reseller's `subaccounts_below_parent`, the
// sub-account's `below_parent`), also after a change of a parent's card further up. The cards'
// account counts put both the accounts without a card and those given `default` on `default`.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { parsePriceCsv, replacePriceCard, setAccountPriceCard } from "../../../src/domain/accounts/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { subAccount } from "../../helpers/resellers.js";
import { keyOf } from "../../helpers/sms.js";

const csv = (rows: string) => `channel,route,prefix,price\n${rows}`;

describeEachEngine("sub-accounts left below their parent's price by a card's change", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, { clock, roles: ["api"] });

  async function tree(t: TestGateway) {
    const cards: Record<string, string> = {
      wholesale: "sms,*,*,0.1\nsms,T,9198,0.15",
      sub: "sms,*,*,0.3\nsms,T,9198,0.25",
      dear: "sms,*,*,0.3\nsms,T,9198,0.3",
    };
    for (const [name, rows] of Object.entries(cards)) {
      await replacePriceCard(t.db.store, clock, name, parsePriceCsv(csv(rows)));
    }
    const reseller = await buildAccount(t);
    await setAccountPriceCard(t.db.store, clock, reseller.username, "wholesale");
    const shop2 = await subAccount(t, reseller, { price_card: "sub" });
    const marked = await subAccount(t, reseller, { markup_percent: 10 });
    const operator = await buildAccount(t, { role: "operator", sender: null });
    return { reseller, shop2, marked, operator };
  }
  const admin = (t: TestGateway, operator: TestAccount, method: string, path: string, json?: unknown) =>
    call(t, method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json === undefined ? {} : { json }),
    });

  it("saves a raised card, names the sub-accounts it puts below, and shows them afterwards", async () => {
    const t = gateway();
    const { reseller, shop2, marked, operator } = await tree(t);
    const put = (body: string) =>
      call(t, "PUT", "/admin/api/price-cards/wholesale", {
        headers: { authorization: `Bearer ${operator.apiKey}`, "content-type": "text/csv" },
        body,
      });
    // Below nothing yet: the answer says so.
    expect((await put(csv("sms,*,*,0.1\nsms,T,9198,0.2"))).body.data.below_parent).toEqual([]);

    const raised = await put(csv("sms,*,*,0.1\nsms,T,9198,0.4"));
    expect(raised.status, raised.text).toBe(200);
    const expected = {
      username: shop2.username,
      parent: reseller.username,
      price_card: "sub",
      units_below: 1,
      units: [{ channel: "sms", route: "T", prefix: "9198", from: null, price: 0.25, parent_price: 0.4 }],
      message: `The sub-account ${shop2.username}'s card "sub" prices an SMS segment on route T to prefix 9198 at 0.25, below its parent ${reseller.username}'s price there (0.4): ${reseller.username} pays more for each such send than ${shop2.username} is charged.`,
    };
    expect(raised.body.data).toEqual({ name: "wholesale", rows: 2, below_parent: [expected] });
    // Saved: the reseller pays 0.4, shop2 is charged 0.25.
    const quote = await call(t, "GET", "/api/v2/pricing?route=T&recipient=919812345678", { headers: keyOf(shop2) });
    expect(quote.body.data.price).toBe(0.25);

    // The reseller sees it on its list (and on the PATCH's answer), the markup never.
    const listed = await call(t, "GET", "/api/v2/subaccounts", { headers: keyOf(reseller) });
    const byName = new Map(listed.body.data.map((s: { username: string }) => [s.username, s]));
    expect((byName.get(shop2.username) as { below_parent: unknown }).below_parent).toEqual({
      units_below: 1,
      units: expected.units,
      message: expected.message,
    });
    expect((byName.get(marked.username) as { below_parent: unknown }).below_parent).toBeNull();
    // The operator, on the reseller's detail and the sub-account's.
    const detail = (await admin(t, operator, "GET", `/accounts/${reseller.username}`)).body.data;
    expect([detail.below_parent, detail.subaccounts_below_parent]).toEqual([null, [expected]]);
    expect((await admin(t, operator, "GET", `/accounts/${shop2.username}`)).body.data.below_parent).toEqual(expected);

    // The sub-account's own card changed to one at or above: nothing left below; JSON answers alike.
    const json = await admin(t, operator, "PUT", "/price-cards/sub", {
      rows: [
        { channel: "sms", route: "*", prefix: "*", price: 0.3 },
        { channel: "sms", route: "T", prefix: "9198", price: 0.45 },
      ],
    });
    expect(json.body.data).toEqual({ name: "sub", rows: 2, below_parent: [] });
    const after = await call(t, "GET", "/api/v2/subaccounts", { headers: keyOf(reseller) });
    expect(after.body.data.every((s: { below_parent: unknown }) => s.below_parent === null)).toBe(true);
    // Lowered again, with a later row: the moment it starts is named.
    const lowered = await admin(t, operator, "PUT", "/price-cards/sub", {
      rows: [
        { channel: "sms", route: "*", prefix: "*", price: 0.3 },
        { channel: "sms", route: "T", prefix: "9198", price: 0.45 },
        { channel: "sms", route: "T", prefix: "9198", price: 0.35, effective_from: "2026-12-01" },
      ],
    });
    expect(lowered.body.data.below_parent[0].units).toEqual([
      {
        channel: "sms",
        route: "T",
        prefix: "9198",
        from: "2026-12-01T00:00:00Z",
        price: 0.35,
        parent_price: 0.4,
      },
    ]);
  });

  it("names them when a parent's card changes further up the tree", async () => {
    const t = gateway();
    const { reseller, shop2, operator } = await tree(t);
    const mid = await subAccount(t, reseller, { markup_percent: 0 });
    const leaf = await subAccount(t, mid, { price_card: "sub" });
    // The reseller on a dearer card: shop2 is below at 9198, and so is the leaf (its parent on a
    // 0 % markup of the reseller's price).
    const changed = await admin(t, operator, "PATCH", `/accounts/${reseller.username}`, { price_card: "dear" });
    expect(changed.status, changed.text).toBe(200);
    expect(
      changed.body.data.subaccounts_below_parent.map((b: { username: string; parent: string; units: unknown[] }) => [
        b.username,
        b.parent,
        b.units,
      ]),
    ).toEqual(
      [
        [leaf.username, mid.username],
        [shop2.username, reseller.username],
      ]
        .sort(([a], [b]) => (a! < b! ? -1 : 1))
        .map(([username, parent]) => [
          username,
          parent,
          [{ channel: "sms", route: "T", prefix: "9198", from: null, price: 0.25, parent_price: 0.3 }],
        ]),
    );
    expect(
      (await admin(t, operator, "GET", `/accounts/${mid.username}`)).body.data.subaccounts_below_parent,
    ).toHaveLength(1);
    const midList = await call(t, "GET", "/api/v2/subaccounts", { headers: keyOf(mid) });
    expect(midList.body.data[0].below_parent.units_below).toBe(1);
  });

  it("counts on default both the accounts without a card and those given it by name", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const parent = await buildAccount(t);
    const sub = await subAccount(t, parent, { markup_percent: 5 });
    const patched = await admin(t, operator, "PATCH", `/accounts/${sub.username}`, { price_card: "default" });
    expect(patched.status, patched.text).toBe(200);
    const cards = (await admin(t, operator, "GET", "/price-cards")).body.data as { name: string; accounts: number }[];
    const count = async (where: "none" | "named") => {
      let query = t.db.store.db.selectFrom("accounts").select((eb) => eb.fn.countAll<number>().as("n"));
      query =
        where === "none"
          ? query.where("parent_id", "is", null).where("price_card", "is", null)
          : query.where("price_card", "=", "default");
      return Number((await query.executeTakeFirstOrThrow()).n);
    };
    expect(await count("named")).toBe(1);
    expect(cards.find((card) => card.name === "default")?.accounts).toBe((await count("none")) + 1);
  });
});
