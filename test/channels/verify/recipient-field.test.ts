// A Verify start refused for its number names the body's field, `recipient`, whatever channel the
// code was to go by: the SMS rules named no field, and WhatsApp's named its own send's `to`, a
// field the Verify body has not. Nothing is started or charged.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { changeVerifySettings } from "../../../src/channels/verify/settings.js";
import { addSenderId, creditWallet } from "../../../src/domain/accounts/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { milli } from "../../helpers/resellers.js";
import { useWhatsAppWorld } from "../whatsapp/helpers.js";
import { verifyCall, verifyEnv } from "./helpers.js";

describeEachEngine("Verify: a refused number names recipient", (engine) => {
  const { env } = verifyEnv();
  const world = useWhatsAppWorld(engine, { clock: new ManualClock("2026-11-22T06:30:00Z"), env });

  it("names recipient for a number the SMS or the WhatsApp channel refuses", async () => {
    const w = world();
    const { account } = await w.connected({ credits: 10 });
    const t = w.t;
    await creditWallet(t.db.store.db, t.clock, {
      accountId: account.id,
      wallet: "sms",
      amount: 100_000,
      kind: "topup",
    });
    await addSenderId(t.db.store.db, t.clock, account.id, "SWBRD", { approve: true });
    await changeVerifySettings(t.db.store.db, t.clock, account.id, {
      verify_sender_id: "SWBRD",
      verify_whatsapp_template: "verify_code",
      verify_channels: ["sms", "whatsapp"],
    });
    const before = { sms: await milli(t, account.id, "sms"), whatsapp: await milli(t, account.id, "whatsapp") };
    for (const [body, got] of [
      [{ recipient: "12345" }, "12345"],
      [{ recipient: "12345", channel: "sms" }, "12345"],
      [{ recipient: "abc", channel: "whatsapp" }, "abc"],
    ] as const) {
      const answer = await verifyCall(t, account, "POST", "", body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.error, JSON.stringify(body)).toMatchObject({ code: "invalid_recipient", field: "recipient" });
      expect(answer.body.message, JSON.stringify(body)).toContain(got);
      expect(answer.body.message, JSON.stringify(body)).not.toContain('"to"');
    }
    expect(await milli(t, account.id, "sms")).toBe(before.sms);
    expect(await milli(t, account.id, "whatsapp")).toBe(before.whatsapp);
    const list = await verifyCall(t, account, "GET", "");
    expect(list.body.data).toEqual([]);
  });
});
