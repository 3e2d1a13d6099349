// A sub-account's sends in every family that charges, on both engines, through the real server:
// a bulk job (its parts carry every level's price; a cancel refunds every level), the XML API,
// the SMPP server, a voice call and an email are each charged at every level of a three-level
// tree at that level's price, and refused with the family's own "credit not available" answer,
// nothing charged anywhere, when a level above is short; a message failed before it reached a
// carrier is refunded at every level; a keyword's auto-reply is charged at every level. The ledger audit runs after each test.
import { afterEach, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { addEmailDomain } from "../../../src/channels/email/domains.js";
import { setSmppSettings } from "../../../src/channels/smpp-server/index.js";
import { approveCallerIdFor } from "../../../src/channels/voice/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { failBeforeCarrier } from "../../../src/domain/messages/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { xmlSend } from "../../helpers/legacy.js";
import { auditLedger, type Credits, milli, resellerTree } from "../../helpers/resellers.js";
import { keyOf, sendSms } from "../../helpers/sms.js";
import { approvedKeyword, assignNumber, inject } from "../inbound/helpers.js";
import { boundEsme } from "../smpp-server/client.js";

describeEachEngine("reseller sends in every family", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, { clock, roles: ["api"], env: { SMPP_SERVER_PORT: "auto" } });
  afterEach(async () => auditLedger(gateway()));

  const full: Credits = { sms: 100, voice: 100, email: 100 };
  const levels = async (t: TestGateway, tree: Record<"top" | "mid" | "leaf", TestAccount>, wallet = "sms") => [
    await milli(t, tree.leaf.id, wallet),
    await milli(t, tree.mid.id, wallet),
    await milli(t, tree.top.id, wallet),
  ];
  const spent = (before: number[], after: number[]) => before.map((b, i) => b - after[i]!);

  it("charges a bulk job at every level per recipient, and a cancel refunds every level", async () => {
    const t = gateway();
    const tree = await resellerTree(t, clock);
    const before = await levels(t, tree);
    const sent = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: keyOf(tree.leaf),
      json: { sender_id: "SWBRD", message: "Stock take tonight", route: "T", recipients: ["9876543210", "9876543211"] },
    });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.data.credits).toBe(1.238);
    expect(spent(before, await levels(t, tree))).toEqual([1238, 1100, 1000]);
    const cancelled = await call(t, "POST", `/api/v2/bulk-jobs/${sent.body.data.job_id}/cancel`, {
      headers: keyOf(tree.leaf),
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data).toMatchObject({ cancelled: 2, credits_refunded: 1.238 });
    expect(await levels(t, tree)).toEqual(before);
  });

  it("charges the XML API and the SMPP server at every level, and refuses both when a level is short", async () => {
    const t = gateway();
    for (const short of [undefined, "mid", "top"] as const) {
      const tree = await resellerTree(t, clock, short ? { [short]: { sms: 0.001 } } : {});
      const before = await levels(t, tree);
      const xml = await xmlSend(
        t,
        `<pushsms><username>${tree.leaf.username}</username><password>${tree.leaf.password}</password>` +
          '<senderid>SWBRD</senderid><route>T</route><messages><message pno="9876543210" msg="Hi"/></messages></pushsms>',
      );
      await setSmppSettings(t.db.store, t.clock, tree.leaf.username, { password: "smpp-pw", submitsPerSecond: 0 });
      const esme = await boundEsme(t, { ...tree.leaf, smppPassword: "smpp-pw" }, "transmitter");
      let status: number;
      try {
        status = (await esme.submit({ source_addr: "SWBRD", destination_addr: "9876543210", short_message: "Hi" }))
          .command_status;
      } finally {
        esme.session.close();
      }
      if (short) {
        expect(xml.text, short).toContain("-12");
        expect(status, short).toBe(0x403);
        expect(await levels(t, tree)).toEqual(before);
      } else {
        expect(xml.status, xml.text).toBe(200);
        expect(status).toBe(0);
        expect(spent(before, await levels(t, tree))).toEqual([1238, 1100, 1000]);
      }
    }
  });

  it("charges a voice call and an email at every level", async () => {
    const t = gateway();
    const tree = await resellerTree(t, clock, { top: full, mid: full, leaf: full });
    await approveCallerIdFor({ store: t.db.store, clock, actor: cliActor() }, tree.leaf.username, "+918047110000");
    const voice = await levels(t, tree, "voice");
    const placed = await call(t, "POST", "/api/v2/voice/calls", {
      headers: keyOf(tree.leaf),
      json: { from: "+918047110000", to: "9876543210", text: "Your OTP is 1234." },
    });
    expect(placed.status, placed.text).toBe(201);
    // The top has no voice row: 1 a unit; mid +10 %; leaf +12.5 % of 1.1, rounded up.
    expect(spent(voice, await levels(t, tree, "voice"))).toEqual([1238, 1100, 1000]);

    await addEmailDomain(t.db.store.db, t.clock, tree.leaf.id, "shop.example.com", { approve: true });
    const email = await levels(t, tree, "email");
    const mailed = await call(t, "POST", "/httpemailapi/v1/send", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        api_key: tree.leaf.apiKey,
        from: "Shop <news@shop.example.com>",
        to: "asha@example.org",
        subject: "Your order",
        html: "<p>Hello</p>",
      }).toString(),
    });
    expect(mailed.status, mailed.text).toBe(200);
    // Email's price is fixed (1 a recipient) at every level.
    expect(spent(email, await levels(t, tree, "email"))).toEqual([1000, 1000, 1000]);
  });

  it("charges a keyword's auto-reply at every level at its fixed price", async () => {
    const t = gateway();
    const tree = await resellerTree(t, clock);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    await assignNumber(t, operator, tree.leaf, "+91 92205 01077");
    await approvedKeyword(t, operator, tree.leaf, {
      key: "info",
      response_type: "static",
      static_message: "Open 9 to 5.",
    });
    const before = await levels(t, tree);
    const matched = await inject(t, operator, { to: "919220501077", from: "+91 98765 43210", message: "info" });
    expect(matched.status, matched.text).toBe(201);
    expect(matched.body.data.reply.status).toBe("sent");
    expect(spent(before, await levels(t, tree))).toEqual([1000, 1000, 1000]);
  });

  it("refunds every level for a message failed before it reached a carrier", async () => {
    const t = gateway();
    const tree = await resellerTree(t, clock);
    const before = await levels(t, tree);
    const sent = await sendSms(t, tree.leaf, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Hi",
      route: "T",
    });
    expect(sent.status, sent.text).toBe(200);
    const id = sent.body.data.message_id as string;
    const row = await t.db.store.db
      .selectFrom("messages")
      .select("upline")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.upline).toBe(`${tree.mid.id}:550,${tree.top.id}:500`);
    await t.db.store.transaction((trx) =>
      failBeforeCarrier(t.db.store, trx, clock, [
        { id, code: "no_route", message: "No route.", at: clock.now().getTime() },
      ]),
    );
    expect(await levels(t, tree)).toEqual(before);
  });
});
