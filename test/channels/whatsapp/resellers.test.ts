// A sub-account's WhatsApp message through the fake Graph API, on both engines: held and charged
// at every level of its tree (1 credit each, the fixed price), and refused with nothing held or
// charged anywhere when a level above has no credit or is blocked; the ledger audit at every level
// after each.
import { afterEach, expect, it } from "vitest";
import { updateAccount } from "../../../src/domain/accounts/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { auditLedger } from "../../helpers/resellers.js";
import { useWhatsAppWorld, whatsappWallet } from "./helpers.js";

describeEachEngine("WhatsApp send by a sub-account", (engine) => {
  const world = useWhatsAppWorld(engine);
  afterEach(async () => auditLedger(world().t));

  /** A connected account two levels below `top`, with the given WhatsApp credits at the top. */
  async function tree(t: TestGateway, topCredits: number) {
    const top = await buildAccount(t, { credits: topCredits > 0 ? { whatsapp: topCredits } : {}, sender: null });
    const mid = await buildAccount(t, { credits: { whatsapp: 5 }, sender: null });
    const leaf = await world().connected({ credits: 5 });
    const setParent = (child: TestAccount, parent: TestAccount) =>
      t.db.store.db.updateTable("accounts").set({ parent_id: parent.id }).where("id", "=", child.id).execute();
    await setParent(mid, top);
    await setParent(leaf.account, mid);
    return { top, mid, leaf };
  }

  const send = { to: "+91 98765 43210", template: "order_shipped", params: ["Asha", 1042] };

  it("holds and charges 1 credit at every level", async () => {
    const { t } = world();
    const { top, mid, leaf } = await tree(t, 5);
    const answer = await leaf.send(send);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    for (const account of [leaf.account, mid, top]) {
      expect(await whatsappWallet(t, account.id)).toEqual({ balance: 4, held: 0 });
    }
    // Each parent's ledger names the sub-account by username (audit row 18), not by its id.
    for (const parent of [mid, top]) {
      const debits = await t.db.store.db
        .selectFrom("ledger_entries")
        .select("note")
        .where("account_id", "=", parent.id)
        .where("kind", "=", "debit")
        .execute();
      expect(debits.map((entry) => entry.note)).toEqual([`WhatsApp message of sub-account ${leaf.account.username}`]);
    }
  });

  it("refuses when a level above has no credit, holding and charging nothing anywhere", async () => {
    const { t } = world();
    const { top, mid, leaf } = await tree(t, 0);
    const answer = await leaf.send(send);
    expect(answer.status).toBe(402);
    expect(answer.body.error.code).toBe("insufficient_credits");
    expect(await whatsappWallet(t, leaf.account.id)).toEqual({ balance: 5, held: 0 });
    expect(await whatsappWallet(t, mid.id)).toEqual({ balance: 5, held: 0 });
    expect(await whatsappWallet(t, top.id)).toEqual({ balance: 0, held: 0 });
    // The log of refusals names the short account to the operator only (decision 0158).
    await t.gateway.ctx.refusals.flush();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const reasonFor = async (path: string, account: TestAccount) =>
      (await call(t, "GET", path, { headers: { authorization: `Bearer ${account.apiKey}` } })).body.data[0]?.reason;
    expect(await reasonFor(`/admin/api/refusals?account=${leaf.account.username}`, operator)).toBe(
      `Credit not available at the account 2 levels above, ${top.username}: its whatsapp wallet holds 0, the send needs 1.`,
    );
    expect(await reasonFor("/api/v2/refusals", leaf.account)).toBe(answer.body.message);
  });

  it("refuses a sub-account whose reseller is blocked (decision 0148), holding and charging nothing; reactivated, it sends", async () => {
    const { t } = world();
    const { top, mid, leaf } = await tree(t, 5);
    expect((await leaf.send(send)).status).toBe(200);
    await updateAccount(t.db.store, t.clock, top.username, { status: "blocked" });
    const refused = await leaf.send(send);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("account_inactive");
    expect(refused.text).toContain("A parent account of this account is blocked");
    for (const account of [leaf.account, mid, top]) {
      expect(await whatsappWallet(t, account.id)).toEqual({ balance: 4, held: 0 });
    }
    await updateAccount(t.db.store, t.clock, top.username, { status: "active" });
    expect((await leaf.send(send)).status).toBe(200);
  });
});
