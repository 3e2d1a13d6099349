// What a message says it cost agrees with the ledger (audit F20; decision 0160), on both engines
// through the real server: a WhatsApp send refused at once (held, released, never debited) costs
// nothing in its record at every level; an SMS, a call and an email refused at submit were
// debited and refunded, and their records say so. Summed over an account's messages, `credit`
// is what its ledger debited.
import { expect, it } from "vitest";
import { addEmailDomain } from "../../../src/channels/email/domains.js";
import { approveCallerIdFor } from "../../../src/channels/voice/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { CALLER, FAST_VOICE_SIMULATOR } from "../../channels/voice/helpers.js";
import { connectSimulatedWhatsApp, expectError } from "../../channels/whatsapp/helpers.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { auditLedger } from "../../helpers/resellers.js";
import { FAST_SIMULATOR, keyOf, sendSms } from "../../helpers/sms.js";

/**
 * The account's ledger entries of a message sent alone, by kind, in credits: those of its queue
 * id, and of its broadcast id (an accepted send's debit names its broadcast).
 */
// biome-ignore lint/suspicious/noExplicitAny: the list's rows are read field by field
async function ledgerOf(t: TestGateway, accountId: number, message: any) {
  const rows = await t.db.store.db
    .selectFrom("ledger_entries")
    .select(["kind", "amount"])
    .where("account_id", "=", accountId)
    .where("ref", "in", [message.message_id, message.broadcast_id])
    .execute();
  const sum = (kind: string) => rows.filter((r) => r.kind === kind).reduce((s, r) => s + Number(r.amount), 0) / 1000;
  return { debited: Math.abs(sum("debit")), refunded: sum("refund") };
}

/** Every message of the account as v2 lists it, waiting until none is still on its way. */
async function finalMessages(t: TestGateway, account: TestAccount, count: number) {
  // biome-ignore lint/suspicious/noExplicitAny: the list's rows are read field by field
  let rows: any[] = [];
  await until(async () => {
    rows = (await call(t, "GET", "/api/v2/messages?limit=100", { headers: keyOf(account) })).body.data;
    return rows.length === count && rows.every((row) => ["failed", "delivered", "read"].includes(row.status));
  }, 15_000);
  return rows;
}

describeEachEngine("a message's cost against the ledger", (engine) => {
  const gateway = useTestGateway(engine, {
    env: { ...FAST_SIMULATOR, ...FAST_VOICE_SIMULATOR, WHATSAPP_SIMULATOR_LATENCY_MS: "20" },
  });

  it("a WhatsApp send refused at once cost nothing; SMS, call and email refused at submit were charged and refunded", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t, { credits: { sms: 10, voice: 10, email: 10, whatsapp: 10 } });
    await connectSimulatedWhatsApp(t, account.id);
    // A variable, not a literal: approveCallerIdFor may take an audit actor besides.
    const approver = { store: t.db.store, clock: t.clock, actor: cliActor() };
    await approveCallerIdFor(approver, account.username, CALLER);
    await addEmailDomain(t.db.store.db, t.clock, account.id, "shop.example.com", { approve: true });
    const auth = { authorization: `Bearer ${account.apiKey}` };

    expectError(
      await call(t, "POST", "/api/v2/whatsapp/send", {
        headers: auth,
        json: { to: "919876500003", template: "hello_world" },
      }),
      502,
      "upstream_error",
    );
    const whatsapp = await call(t, "POST", "/api/v2/whatsapp/send", {
      headers: auth,
      json: { to: "919876543210", template: "hello_world" },
    });
    expect(whatsapp.status, whatsapp.text).toBe(200);
    expect((await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876500002", message: "x" })).status).toBe(200);
    const voice = await fetch(
      `${t.url}/voicecall/v1/send?${new URLSearchParams({ apikey: account.apiKey, from: CALLER, to: "9876500002", text: "Hello" })}`,
    );
    expect(voice.status).toBe(200);
    const email = await call(t, "POST", "/httpemailapi/v1/send", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        api_key: account.apiKey,
        from: "Shop <news@shop.example.com>",
        to: "Asha+bounce@example.org",
        subject: "S",
        html: "<p>x</p>",
      }).toString(),
    });
    expect(email.status, email.text).toBe(200);

    const rows = await finalMessages(t, account, 5);
    const byChannel = (channel: string, recipient: string) =>
      rows.find((row) => row.channel === channel && String(row.recipient ?? row.mobile).endsWith(recipient));
    const refusedWhatsApp = byChannel("whatsapp", "0003");
    expect(refusedWhatsApp).toMatchObject({ status: "failed", credit: 0 });
    const detail = await operatorCall(t, operator, "GET", `/messages/${refusedWhatsApp.message_id}`);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.data.cost).toEqual({ credits: 0, wallet: "whatsapp", refunded: false });
    expect(detail.body.data.charges).toEqual([{ account: account.username, credits: 0 }]);
    expect(detail.body.data.message.credit).toBe(0);
    expect(await ledgerOf(t, account.id, refusedWhatsApp)).toEqual({ debited: 0, refunded: 0 });

    // The others: what the record says was charged, and whether refunded, is what the ledger did.
    for (const row of rows) {
      const ledger = await ledgerOf(t, account.id, row);
      const shown = (await operatorCall(t, operator, "GET", `/messages/${row.message_id}`)).body.data;
      expect(shown.cost.credits, `${row.channel} ${row.message_id}`).toBe(ledger.debited);
      expect(shown.cost.refunded, `${row.channel} ${row.message_id}`).toBe(ledger.refunded > 0);
      expect(shown.charges).toEqual([{ account: account.username, credits: ledger.debited }]);
    }
    for (const channel of ["sms", "voice", "email"]) {
      const refused = rows.find((row) => row.channel === channel);
      expect(refused.status, channel).toBe("failed");
      expect(await ledgerOf(t, account.id, refused), channel).toEqual({ debited: 1, refunded: 1 });
    }
    // An auditor's sum: the messages' credits are the ledger's debits.
    const debits = await t.db.store.db
      .selectFrom("ledger_entries")
      .select("amount")
      .where("account_id", "=", account.id)
      .where("kind", "=", "debit")
      .execute();
    const listed = rows.reduce((sum, row) => sum + row.credit, 0);
    expect(listed).toBe(-debits.reduce((sum, row) => sum + Number(row.amount), 0) / 1000);
    expect(listed).toBe(4);
    await auditLedger(t);
  });

  it("a sub-account's WhatsApp send refused at once charged no level of its tree, and its record says so", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const parent = await buildAccount(t, { credits: { whatsapp: 5 }, sender: null });
    const child = await buildAccount(t, { credits: { whatsapp: 5 }, sender: null });
    await t.db.store.db.updateTable("accounts").set({ parent_id: parent.id }).where("id", "=", child.id).execute();
    await connectSimulatedWhatsApp(t, child.id);
    expectError(
      await call(t, "POST", "/api/v2/whatsapp/send", {
        headers: { authorization: `Bearer ${child.apiKey}` },
        json: { to: "919876500003", template: "hello_world" },
      }),
      502,
      "upstream_error",
    );
    const [row] = await finalMessages(t, child, 1);
    const detail = (await operatorCall(t, operator, "GET", `/messages/${row.message_id}`)).body.data;
    expect(detail.cost).toEqual({ credits: 0, wallet: "whatsapp", refunded: false });
    expect(detail.charges).toEqual([{ account: child.username, credits: 0 }]);
    for (const level of [child, parent]) {
      expect(await ledgerOf(t, level.id, row)).toEqual({ debited: 0, refunded: 0 });
    }
    await auditLedger(t);
  });
});
