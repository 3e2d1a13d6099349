// A parent takes back credits it issued to a sub-account, through the real server on both engines
// (decision 0150, audit F2): POST /api/v2/subaccounts/{username}/credits/reclaim removes them
// from the sub-account (an `adjustment` entry) and adds nothing to the parent's wallet (issued
// credits were never taken from it); never below the spendable balance, even when reclaims race;
// audited in both logs; 404 for any account but the caller's direct sub-account; owner and admin
// only (a billing user issues, but may not take back). Every test ends with the ledger audit.
import { afterEach, expect, it } from "vitest";
import { addConsoleUser, callAs } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { auditLedger, milli, subAccount } from "../../helpers/resellers.js";
import { keyOf } from "../../helpers/sms.js";

describeEachEngine("a parent takes back credits it issued", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });

  afterEach(async () => auditLedger(gateway()));

  const reclaim = (t: TestGateway, caller: TestAccount, username: string, json: Record<string, unknown>) =>
    call(t, "POST", `/api/v2/subaccounts/${username}/credits/reclaim`, { headers: keyOf(caller), json });

  it("removes the credits from the sub-account only, as an adjustment, audited on both sides", async () => {
    const t = gateway();
    const top = await buildAccount(t, { credits: { sms: 500 } });
    const sub = await subAccount(t, top, { markup_percent: 10 }, { sms: 100, voice: 5 });

    const taken = await reclaim(t, top, sub.username, { wallet: "sms", amount: 30.5 });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.data).toMatchObject({ username: sub.username, wallet: "sms", amount: 30.5, balance: 69.5 });
    expect(taken.body.data.ref).toMatch(/^reclaim_/);
    expect(await milli(t, sub.id)).toBe(69_500);
    expect(await milli(t, top.id)).toBe(500_000);
    const entries = await t.db.store.db
      .selectFrom("ledger_entries")
      .select(["account_id", "wallet", "amount", "kind", "ref", "note", "balance_after"])
      .where("ref", "=", taken.body.data.ref)
      .execute();
    expect(entries).toEqual([
      {
        account_id: sub.id,
        wallet: "sms",
        amount: -30_500,
        kind: "adjustment",
        ref: taken.body.data.ref,
        note: `reclaimed by parent ${top.username}`,
        balance_after: 69_500,
      },
    ]);
    const shown = await call(t, "GET", "/api/v2/credits", { headers: keyOf(sub) });
    expect(shown.body.data.recent_credits[0]).toMatchObject({ amount: -30.5, kind: "adjustment" });

    // The whole voice wallet, to zero.
    const all = await reclaim(t, top, sub.username, { wallet: "voice", amount: 5 });
    expect(all.body.data.balance).toBe(0);

    for (const caller of [top, sub]) {
      const log = await call(t, "GET", "/api/v2/audit?action=credits.reclaim", { headers: keyOf(caller) });
      expect(log.status, log.text).toBe(200);
      expect(log.body.data.map((e: { target: string }) => e.target)).toEqual([
        `voice wallet of ${sub.username}`,
        `sms wallet of ${sub.username}`,
      ]);
      const last = log.body.data[1];
      expect([last.actor, last.account, last.before, last.after]).toEqual([
        top.username,
        sub.username,
        { balance: 100 },
        { balance: 69.5, amount: 30.5, ref: taken.body.data.ref, note: `reclaimed by parent ${top.username}` },
      ]);
    }
  });

  it("never takes more than the spendable balance, even when reclaims race", async () => {
    const t = gateway();
    const top = await buildAccount(t, { credits: { sms: 500 } });
    const sub = await subAccount(t, top, {}, { sms: 100 });

    const much = await reclaim(t, top, sub.username, { wallet: "sms", amount: 100.001 });
    expect(much.status, much.text).toBe(400);
    expect(much.body.error).toMatchObject({ code: "invalid_request", field: "amount" });
    expect(much.body.message).toContain("holds 100 credits that can be taken back");
    for (const [body, field] of [
      [{ wallet: "sms", amount: -5 }, "amount"],
      [{ wallet: "sms", amount: 0 }, "amount"],
      [{ wallet: "sms", amount: 1.0001 }, "amount"],
      [{ wallet: "gold", amount: 5 }, "wallet"],
    ] as const) {
      const answer = await reclaim(t, top, sub.username, body);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error.field).toBe(field);
    }
    // A negative amount on the issuing route is still refused: reclaiming has its own route.
    const negative = await call(t, "POST", `/api/v2/subaccounts/${sub.username}/credits`, {
      headers: keyOf(top),
      json: { wallet: "sms", amount: -5 },
    });
    expect(negative.status).toBe(400);
    expect(await milli(t, sub.id)).toBe(100_000);

    const answers = await Promise.all(
      Array.from({ length: 10 }, () => reclaim(t, top, sub.username, { wallet: "sms", amount: 30 })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 400)).toHaveLength(7);
    expect(await milli(t, sub.id)).toBe(10_000);
    expect(await milli(t, top.id)).toBe(500_000);
  });

  it("answers 404 for any account but the caller's direct sub-account, and is for owners and admins only", async () => {
    const t = gateway();
    const top = await buildAccount(t, { credits: { sms: 500 } });
    const sub = await subAccount(t, top, {}, { sms: 100 });
    const sibling = await subAccount(t, top, {}, { sms: 100 });
    const grandchild = await subAccount(t, sub, {}, { sms: 10 });
    const other = await buildAccount(t);
    for (const [caller, name] of [
      [other, sub.username],
      [sub, top.username],
      [sub, sibling.username],
      [top, grandchild.username],
      [top, "nosuch"],
      [top, top.username],
    ] as const) {
      const answer = await reclaim(t, caller, name, { wallet: "sms", amount: 1 });
      expect(answer.status, `${caller.username} ${name}: ${answer.text}`).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
    }

    const signedIn = (login: string, userRole: string) => addConsoleUser(t, top, login, userRole);
    const path = `/api/v2/subaccounts/${sub.username}/credits/reclaim`;
    const billing = await signedIn("bill", "billing");
    const issued = await callAs(t, billing, "POST", `/api/v2/subaccounts/${sub.username}/credits`, {
      json: { wallet: "sms", amount: 1 },
    });
    expect(issued.status, issued.text).toBe(200);
    // Billing reads the list it issues to (console audit C11); changing a sub-account stays manage's.
    const listed = await callAs(t, billing, "GET", "/api/v2/subaccounts");
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((s: { username: string }) => s.username)).toContain(sub.username);
    const suspended = await callAs(t, billing, "PATCH", `/api/v2/subaccounts/${sub.username}`, {
      json: { status: "suspended" },
    });
    expect(suspended.status, suspended.text).toBe(403);
    for (const session of [billing, await signedIn("dev", "developer")]) {
      const refused = await callAs(t, session, "POST", path, { json: { wallet: "sms", amount: 1 } });
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.error.code).toBe("insufficient_role");
    }
    const admin = await callAs(t, await signedIn("boss", "admin"), "POST", path, {
      json: { wallet: "sms", amount: 1 },
    });
    expect(admin.status, admin.text).toBe(200);
    expect(await milli(t, sub.id)).toBe(100_000);
    expect(await milli(t, sibling.id)).toBe(100_000);
    expect(await milli(t, grandchild.id)).toBe(10_000);
  });
});
