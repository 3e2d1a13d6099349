// An account holder reads every wallet, not only SMS: `balance` stays the SMS wallet exactly as
// the spec shows it (clients parse it), `wallets` adds the five; the legacy answer is unchanged.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";
import { legacy } from "../../helpers/legacy.js";
import { FAST_SIMULATOR, ISO_UTC, keyOf, sendSms } from "../../helpers/sms.js";

const CREDITS = { sms: 12.5, international: 3, whatsapp: 50, email: 7 };

describeEachEngine("every wallet readable by its holder", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("answers /api/v2/balance with the SMS balance and every wallet, and /api/v2/credits likewise", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: CREDITS });
    const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "hello" });
    expect(sent.status, sent.text).toBe(200);
    const wallets = { sms: 11.5, international: 3, whatsapp: 50, email: 7, voice: 0 };

    const balance = await call(t, "GET", "/api/v2/balance", { headers: keyOf(account) });
    expect(balance.status, balance.text).toBe(200);
    expect(balance.body).toEqual({
      success: true,
      message: "Balance retrieved",
      data: { balance: 11.5, currency: "credits", last_updated: expect.stringMatching(ISO_UTC), wallets },
    });

    const credits = await call(t, "GET", "/api/v2/credits", { headers: keyOf(account) });
    expect(credits.status, credits.text).toBe(200);
    expect(credits.body.data).toMatchObject({ balance: 11.5, international_credit: 3, wallets });
    expect(Object.keys(credits.body.data.wallets)).toEqual(["sms", "international", "whatsapp", "email", "voice"]);

    // The legacy call keeps answering the SMS balance as a bare number.
    const legacyAnswer = await legacy(t, "/api/getcredits", { username: account.username, password: account.password });
    expect(legacyAnswer.text).toBe("11.5");
  });

  it("shows each holder its own wallets", async () => {
    const t = gateway();
    const rich = await buildAccount(t, { credits: { sms: 900, whatsapp: 900, voice: 2.25 } });
    const poor = await buildAccount(t, { credits: { sms: 1 } });
    const walletsOf = async (key: Record<string, string>) =>
      (await call(t, "GET", "/api/v2/balance", { headers: key })).body.data.wallets;
    expect(await walletsOf(keyOf(rich))).toEqual({ sms: 900, international: 0, whatsapp: 900, email: 0, voice: 2.25 });
    expect(await walletsOf(keyOf(poor))).toEqual({ sms: 1, international: 0, whatsapp: 0, email: 0, voice: 0 });
  });
});
