// Resellers through the real server, on both engines: a three-level tree (a customer, its
// sub-account, that one's sub-account) built with the v2 calls; a send by the lowest level is
// charged at every level at that level's own price (a card, or the parent's price marked up,
// rounded up to a milli-credit) and refunded at every level when cancelled; a level without the
// credits refuses the send in each family's dialect and nothing is charged anywhere; 50
// concurrent sends at the edge of each level's balance accept exactly what fits; a parent sees
// and manages only its own sub-accounts. Every test ends with the ledger audit at every level.
import { afterEach, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { markedUp } from "../../../src/domain/accounts/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { legacy, operatorCall, sendParams } from "../../helpers/legacy.js";
import { auditLedger, milli, resellerTree, subAccount } from "../../helpers/resellers.js";
import { keyOf, sendSms } from "../../helpers/sms.js";

const MESSAGE = "Your OTP is 1234";

describeEachEngine("resellers", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, { clock, roles: ["api"] });

  afterEach(async () => auditLedger(gateway()));

  const tree = (t: TestGateway, balances: { top?: number; mid?: number; leaf?: number } = {}) =>
    resellerTree(t, clock, {
      top: { sms: balances.top ?? 1000 },
      mid: { sms: balances.mid ?? 100 },
      leaf: { sms: balances.leaf ?? 100 },
    });

  const send = (t: TestGateway, account: TestAccount) =>
    sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: MESSAGE, route: "T" });

  it("charges a send at every level at that level's price, and a cancel refunds every level", async () => {
    const t = gateway();
    const { top, mid, leaf } = await tree(t);
    expect(markedUp(550, 1250)).toBe(619);
    const quote = await call(t, "GET", "/api/v2/pricing?route=T&recipient=9876543210", { headers: keyOf(leaf) });
    expect(quote.body.data).toMatchObject({ price: 0.619, card: "your price" });
    const credits = await call(t, "GET", "/api/v2/credits", { headers: keyOf(leaf) });
    expect(credits.body.data.price_card).toBe("your price");

    const sent = await send(t, leaf);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.data.credits).toBe(0.619);
    expect(await milli(t, leaf.id)).toBe(100_000 - 619);
    expect(await milli(t, mid.id)).toBe(100_000 - 550);
    expect(await milli(t, top.id)).toBe(1_000_000 - 500);
    // The funding was issued, not taken from the parent: a topup noting it.
    const funding = await t.db.store.db
      .selectFrom("ledger_entries")
      .selectAll()
      .where("account_id", "=", leaf.id)
      .where("kind", "=", "topup")
      .executeTakeFirstOrThrow();
    expect(funding.note).toBe(`from parent ${mid.username}`);

    // A mid-level send is charged at mid and top only; a top-level send at top only.
    expect((await send(t, mid)).status).toBe(200);
    expect(await milli(t, mid.id)).toBe(100_000 - 1100);
    expect(await milli(t, top.id)).toBe(1_000_000 - 1000);

    const scheduled = await call(t, "POST", "/api/v2/sms/schedule", {
      headers: keyOf(leaf),
      json: {
        sender_id: "SWBRD",
        recipient: "9876543210",
        message: MESSAGE,
        route: "T",
        scheduled_at: "2026-11-23 10:00:00",
      },
    });
    expect(scheduled.status, scheduled.text).toBe(200);
    expect(await milli(t, leaf.id)).toBe(100_000 - 1238);
    expect(await milli(t, top.id)).toBe(1_000_000 - 1500);
    const cancelled = await call(t, "DELETE", `/api/v2/sms/schedule/${scheduled.body.data.broadcast_id}`, {
      headers: keyOf(leaf),
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data.refunded_credits).toBe(0.619);
    expect(await milli(t, leaf.id)).toBe(100_000 - 619);
    expect(await milli(t, mid.id)).toBe(100_000 - 1100);
    expect(await milli(t, top.id)).toBe(1_000_000 - 1000);
  });

  it("refuses a send when any level lacks credits, in each family's dialect, charging nothing anywhere", async () => {
    const t = gateway();
    for (const short of ["leaf", "mid", "top"] as const) {
      const { top, mid, leaf } = await tree(t, { [short]: 0.001 });
      const before = [await milli(t, leaf.id), await milli(t, mid.id), await milli(t, top.id)];
      const v2 = await send(t, leaf);
      expect(v2.status, `${short}: ${v2.text}`).toBe(402);
      expect(v2.body.error.code).toBe("insufficient_credits");
      // The same words whichever wallet is short: a sub-account is not told that a parent pays,
      // nor which, nor its wallet (decision 0150).
      expect(v2.body.message).toBe("Credit not available.");
      for (const ancestor of [mid, top]) expect(v2.text).not.toContain(ancestor.username);
      const old = await legacy(t, "/httpapi/send", sendParams(leaf, { phonenumber: "9876543210" }));
      expect(old.text, short).toContain("-12");
      expect([await milli(t, leaf.id), await milli(t, mid.id), await milli(t, top.id)]).toEqual(before);
    }
  });

  it("accepts exactly what fits when 50 sends race at the edge of each level's balance", async () => {
    const t = gateway();
    // 20 sends fit the short level: leaf 20 × 0.619, mid 20 × 0.55, top 20 × 0.5.
    for (const [short, balance] of [
      ["leaf", 12.38],
      ["mid", 11],
      ["top", 10],
    ] as const) {
      const { top, mid, leaf } = await tree(t, { top: 1000, mid: 1000, leaf: 1000, [short]: balance });
      const before = [await milli(t, leaf.id), await milli(t, mid.id), await milli(t, top.id)];
      const answers = await Promise.all(Array.from({ length: 50 }, () => send(t, leaf)));
      const accepted = answers.filter((a) => a.status === 200).length;
      expect(accepted, short).toBe(20);
      expect(answers.filter((a) => a.status === 402)).toHaveLength(30);
      expect([await milli(t, leaf.id), await milli(t, mid.id), await milli(t, top.id)]).toEqual([
        before[0]! - 20 * 619,
        before[1]! - 20 * 550,
        before[2]! - 20 * 500,
      ]);
    }
  });

  it("shows a parent its own sub-accounts only, and never a sub-account its parent", async () => {
    const t = gateway();
    const { top, mid, leaf } = await tree(t);
    const sibling = await subAccount(t, mid, {}, { sms: 10 });
    expect((await send(t, leaf)).status).toBe(200);

    const list = (account: TestAccount, path: string) => call(t, "GET", path, { headers: keyOf(account) });
    const mine = await list(mid, `/api/v2/messages?subaccount=${leaf.username}`);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.data).toHaveLength(1);
    expect((await list(mid, `/api/v2/refusals?subaccount=${leaf.username}`)).status).toBe(200);
    const summary = await list(mid, `/api/v2/messages/summary?subaccount=${leaf.username}`);
    expect(summary.status, summary.text).toBe(200);
    expect(summary.body.data.channels.sms.today.sent).toBe(1);
    const exported = await list(mid, `/api/v2/messages/export?format=jsonl&subaccount=${leaf.username}`);
    expect(exported.status, exported.text).toBe(200);
    expect(
      exported.text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).message_id),
    ).toEqual([mine.body.data[0].message_id]);
    expect((await list(mid, "/api/v2/messages/export?format=jsonl")).text.trim()).toBe("");
    const minutes = await list(mid, `/api/v2/messages/per-minute?hours=1&subaccount=${leaf.username}`);
    expect(minutes.status, minutes.text).toBe(200);
    const subs = await list(mid, "/api/v2/subaccounts?per_page=1");
    expect(subs.body.meta).toMatchObject({ total: 2, per_page: 1, last_page: 2 });
    expect(subs.body.data[0]).toMatchObject({ username: leaf.username, markup_percent: 12.5, price_card: null });

    const probes: [TestAccount, string, string][] = [
      // A sibling's, the caller's parent's, an unknown one (a grandchild's is read: tree-reads.test.ts).
      [sibling, "GET", `/api/v2/messages?subaccount=${leaf.username}`],
      [leaf, "GET", `/api/v2/messages?subaccount=${mid.username}`],
      [leaf, "GET", `/api/v2/refusals?subaccount=${mid.username}`],
      [leaf, "GET", `/api/v2/messages/summary?subaccount=${mid.username}`],
      [sibling, "GET", `/api/v2/messages/per-minute?subaccount=${leaf.username}`],
      [sibling, "GET", `/api/v2/messages/export?subaccount=${leaf.username}`],
      [leaf, "GET", `/api/v2/messages/export?subaccount=${mid.username}`],
      [mid, "GET", "/api/v2/messages?subaccount=nosuch"],
      [sibling, "POST", `/api/v2/subaccounts/${leaf.username}/keys`],
      [leaf, "POST", `/api/v2/subaccounts/${mid.username}/keys`],
      [leaf, "POST", `/api/v2/subaccounts/${mid.username}/credits`],
      [top, "POST", `/api/v2/subaccounts/${leaf.username}/credits`],
    ];
    for (const [caller, method, path] of probes) {
      const json = path.endsWith("/credits") ? { wallet: "sms", amount: 5 } : method === "POST" ? {} : undefined;
      const answer = await call(t, method, path, { headers: keyOf(caller), ...(json ? { json } : {}) });
      expect(answer.status, `${caller.username} ${path}`).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
    }
    expect((await list(leaf, "/api/v2/subaccounts")).body.data).toEqual([]);
  });

  it("lets a sub-account's issued credits move only to a sibling, never up to a parent or out of the tree", async () => {
    const t = gateway();
    const { top, mid, leaf } = await tree(t);
    const sibling = await subAccount(t, mid, {}, { sms: 10 });
    const outsider = await buildAccount(t, { credits: { sms: 50 } });
    const transfer = (from: TestAccount, to: TestAccount, amount: number) =>
      call(t, "POST", "/api/v2/credits/transfer", {
        headers: keyOf(from),
        json: { recipient_username: to.username, amount },
      });
    const before = { top: await milli(t, top.id), mid: await milli(t, mid.id), outsider: await milli(t, outsider.id) };
    // Issued free by mid, then sent back up, to the top, or to a stranger: each would be credits nobody paid for.
    for (const [from, to] of [
      [leaf, mid],
      [leaf, top],
      [leaf, outsider],
      [mid, top],
      [mid, outsider],
    ] as const) {
      const refused = await transfer(from, to, 5);
      expect(refused.status, `${from.username} -> ${to.username}: ${refused.text}`).toBe(403);
      expect(refused.body.error).toMatchObject({ code: "forbidden", field: "recipient_username" });
      expect(refused.body.message).toContain("another sub-account of the same parent");
    }
    expect(await milli(t, leaf.id)).toBe(100_000);
    expect({ top: await milli(t, top.id), mid: await milli(t, mid.id), outsider: await milli(t, outsider.id) }).toEqual(
      before,
    );
    // A sibling's sends charge the same parents: allowed.
    const sideways = await transfer(leaf, sibling, 5);
    expect(sideways.status, sideways.text).toBe(200);
    expect(await milli(t, sibling.id)).toBe(15_000);
    // Both wallets' logs show it: the sender's transfer, the recipient's transfer_in (and the operator's ?account= view).
    const logOf = async (account: TestAccount) =>
      (await call(t, "GET", "/api/v2/audit?action=credits", { headers: keyOf(account) })).body.data as Array<
        Record<string, unknown>
      >;
    const received = (await logOf(sibling)).find((entry) => entry.action === "credits.transfer_in");
    expect(received).toMatchObject({
      actor: leaf.username,
      target: `sms wallet of ${sibling.username} from ${leaf.username}`,
    });
    const full = await call(t, "GET", `/api/v2/audit?action=credits.transfer_in&limit=1`, { headers: keyOf(sibling) });
    expect(full.body.data[0]).toMatchObject({
      before: { balance: 10 },
      after: { balance: 15, amount: 5, from: leaf.username },
    });
    expect((await logOf(leaf)).map((entry) => entry.action)).toContain("credits.transfer");
    // A top-level account still transfers to anyone, and paid credits may go down into a tree.
    expect((await transfer(top, outsider, 1)).status).toBe(200);
    expect((await transfer(outsider, leaf, 1)).status).toBe(200);
    // The transfer_in is a change the sender made, but the recipient's balance is not the sender's
    // to read unless the recipient is below it: the sibling's and the stranger's are left out.
    const transferIns = async (reader: TestAccount) =>
      (await call(t, "GET", "/api/v2/audit?action=credits.transfer_in", { headers: keyOf(reader) })).body
        .data as Array<{ account: string; before: Record<string, unknown>; after: Record<string, unknown> }>;
    const sent = async (reader: TestAccount, to: TestAccount) =>
      (await transferIns(reader)).find((e) => e.account === to.username);
    expect(await sent(leaf, sibling)).toMatchObject({ before: {}, after: { amount: 5, from: leaf.username } });
    expect((await sent(leaf, sibling))?.after).not.toHaveProperty("balance");
    expect(await sent(top, outsider)).toMatchObject({ before: {}, after: { amount: 1, from: top.username } });
    expect((await sent(outsider, leaf))?.after).not.toHaveProperty("balance");
    // The recipient's own log keeps its balance.
    expect(await sent(outsider, outsider)).toMatchObject({ after: { amount: 1, from: top.username, balance: 51 } });
    const exported = await call(t, "GET", "/api/v2/audit/export?format=jsonl&action=credits.transfer_in", {
      headers: keyOf(top),
    });
    expect(exported.text).toContain(outsider.username);
    expect(exported.text).not.toContain('"balance"');
    // A parent funding its own sub-account still reads the sub-account's balances.
    const funded = (await call(t, "GET", "/api/v2/audit?action=credits", { headers: keyOf(mid) })).body.data.filter(
      (e: { account: string }) => e.account === leaf.username,
    );
    expect(funded.length).toBeGreaterThan(0);
    expect(JSON.stringify(funded)).toContain('"balance"');
  });

  it("refuses bad sub-account requests and bad parents with clear errors", async () => {
    const t = gateway();
    const parent = await buildAccount(t);
    const post = (json: unknown) => call(t, "POST", "/api/v2/subaccounts", { headers: keyOf(parent), json });
    for (const [body, field] of [
      [{ username: "ok_name", password: "longenough", markup_percent: 1.234 }, "markup_percent"],
      [{ username: "ok_name", password: "longenough", markup_percent: -1 }, "markup_percent"],
      [{ username: "ok_name", password: "longenough", price_card: "nosuch" }, "price_card"],
      [{ username: "ok_name", password: "short" }, undefined],
      [{ username: "ok_name" }, undefined],
    ] as const) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe("invalid_request");
      if (field) expect(answer.text).toContain(field);
    }
    const taken = await post({ username: parent.username, password: "longenough" });
    expect(taken.status).toBe(409);
    const funding = (json: unknown) =>
      call(t, "POST", "/api/v2/subaccounts/nosuch/credits", { headers: keyOf(parent), json });
    expect((await funding({ wallet: "sms", amount: 1 })).status).toBe(404);
    const sub = await subAccount(t, parent, {}, {});
    for (const json of [
      { wallet: "gold", amount: 1 },
      { wallet: "sms", amount: 0 },
      { wallet: "sms", amount: -5 },
      { wallet: "sms" },
    ]) {
      const answer = await call(t, "POST", `/api/v2/subaccounts/${sub.username}/credits`, {
        headers: keyOf(parent),
        json,
      });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body.error.code).toBe("invalid_request");
    }

    const operator = await buildAccount(t, { role: "operator" });
    const byOperator = await call(t, "POST", "/api/v2/subaccounts", {
      headers: keyOf(operator),
      json: { username: "op_child", password: "longenough" },
    });
    expect(byOperator.status, byOperator.text).toBe(403);
    expect(byOperator.body.error.code).toBe("forbidden");
    const admin = (json: unknown) =>
      call(t, "POST", "/admin/api/accounts", { headers: { authorization: `Bearer ${operator.apiKey}` }, json });
    const unknown = await admin({ username: "child_x", password: "longenough", parent: "nosuch" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('No account named "nosuch" to be the parent');
    const self = await admin({ username: "child_y", password: "longenough", parent: "CHILD_Y" });
    expect(self.status).toBe(400);
    expect(self.body.message).toContain("cannot be its own parent");
    for (const [json, reason] of [
      [{ username: "child_m", password: "longenough", markup_percent: 5 }, "give parent too"],
      [{ username: "child_m", password: "longenough", parent: parent.username, markup_percent: 1.234 }, "2 decimals"],
      [{ username: "child_m", password: "longenough", parent: parent.username, markup_percent: -1 }, "from 0 to"],
    ] as const) {
      const refused = await admin(json);
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.message).toContain(reason);
    }
    const none = await call(t, "GET", "/admin/api/accounts/child_m", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(none.status).toBe(404);
    const ok = await admin({
      username: "child_z",
      password: "longenough",
      parent: parent.username,
      markup_percent: 7.5,
    });
    expect(ok.status, ok.text).toBe(201);
    const shown = await operatorCall(t, operator, "GET", "/accounts/child_z");
    // Priced by its parent, and every view says so as the quote does: not the built-in default.
    expect(shown.body.data).toMatchObject({ parent: parent.username, markup_percent: 7.5, price_card: "parent+7.5%" });
    expect((await operatorCall(t, operator, "GET", `/accounts/${parent.username}`)).body.data).toMatchObject({
      parent: null,
      markup_percent: null,
      price_card: "default",
    });
    const cards = (await operatorCall(t, operator, "GET", "/price-cards")).body.data as {
      name: string;
      accounts: number;
    }[];
    const accounts = await t.db.store.db
      .selectFrom("accounts")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("parent_id", "is", null)
      .where("price_card", "is", null)
      .executeTakeFirstOrThrow();
    expect(cards.find((card) => card.name === "default")?.accounts).toBe(Number(accounts.n));
  });
});
