// Codes by WhatsApp (a template through the account's business account, here a fake Graph API)
// and by email (the simulator's captured inbox), the escalation order skipping channels the
// account cannot use, and the code masked everywhere but what went upstream.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { addEmailDomain } from "../../../src/channels/email/domains.js";
import { MASK_CHAR } from "../../../src/channels/verify/codes.js";
import { changeVerifySettings } from "../../../src/channels/verify/settings.js";
import { approveCallerIdFor } from "../../../src/channels/voice/index.js";
import { addSenderId, creditWallet } from "../../../src/domain/accounts/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { auditLedger, milli } from "../../helpers/resellers.js";
import { keyOf } from "../../helpers/sms.js";
import { useWhatsAppWorld } from "../whatsapp/helpers.js";
import { advance, CALLER, capturedCode, freshNumber, start, verifyAccount, verifyCall, verifyEnv } from "./helpers.js";

describeEachEngine("Verify codes by WhatsApp and email", (engine) => {
  const { env } = verifyEnv();
  const world = useWhatsAppWorld(engine, { clock: new ManualClock("2026-11-22T06:30:00Z"), env });

  /** A WhatsApp-connected account with SMS and email too, and verify settings for all three. */
  async function codeAccount(options: { whatsapp?: boolean; caller?: boolean; channels?: string[] } = {}) {
    const w = world();
    const { account } = await w.connected({ credits: 10 });
    const t = w.t;
    for (const wallet of ["sms", "email", "voice"] as const) {
      await creditWallet(t.db.store.db, t.clock, { accountId: account.id, wallet, amount: 100_000, kind: "topup" });
    }
    await addEmailDomain(t.db.store.db, t.clock, account.id, "shop.example.com", { approve: true });
    await addSenderId(t.db.store.db, t.clock, account.id, "SWBRD", { approve: true });
    if (options.caller)
      await approveCallerIdFor({ store: t.db.store, clock: t.clock, actor: cliActor() }, account.username, CALLER);
    await changeVerifySettings(t.db.store.db, t.clock, account.id, {
      verify_sender_id: "SWBRD",
      verify_email_from: "otp@shop.example.com",
      ...(options.whatsapp === false ? {} : { verify_whatsapp_template: "verify_code" }),
      ...(options.caller ? { verify_caller_id: CALLER } : {}),
      ...(options.channels ? { verify_channels: options.channels } : {}),
    });
    return { t, account, fake: w.fake };
  }

  it("sends a code by WhatsApp: the template's param and button carry it, the stored message shows it masked", async () => {
    const { t, account, fake } = await codeAccount({ channels: ["whatsapp", "sms"] });
    const before = await milli(t, account.id, "whatsapp");
    const recipient = freshNumber();
    const started = await start(t, account, { recipient });
    expect(started.body.data.channel).toBe("whatsapp");
    const id = started.body.data.verification_id;
    const messageId = (await verifyCall(t, account, "GET", `/${id}`)).body.data.message_id;
    const sent = fake.sends().at(-1)!.body as {
      to: string;
      template: { name: string; components: { type: string; parameters: { text: string }[] }[] };
    };
    expect(sent.to).toBe(`91${recipient}`);
    expect(sent.template.name).toBe("verify_code");
    const code = sent.template.components.find((c) => c.type === "body")!.parameters[0]!.text;
    expect(code).toMatch(/^\d{6}$/);
    expect(sent.template.components.find((c) => c.type === "button")!.parameters[0]!.text).toBe(code);

    const row = await t.db.store.db
      .selectFrom("messages")
      .select(["body", "meta", "channel"])
      .where("id", "=", messageId)
      .executeTakeFirstOrThrow();
    expect(row.channel).toBe("whatsapp");
    expect(`${row.body} ${row.meta}`).not.toContain(code);
    expect(row.body).toContain(MASK_CHAR.repeat(6));
    const detail = await call(t, "GET", `/api/v2/messages/${messageId}`, { headers: keyOf(account) });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.text).not.toContain(code);
    expect(await milli(t, account.id, "whatsapp")).toBeLessThan(before);

    expect((await verifyCall(t, account, "POST", `/${id}/check`, { code })).body.data.status).toBe("approved");
    await auditLedger(t);
  });

  it("escalates sms → whatsapp → voice by default, skipping WhatsApp for an account that cannot use it", async () => {
    const { t, account } = await codeAccount();
    const id = (await start(t, account, { recipient: freshNumber() })).body.data.verification_id;
    advance(t, 30_000);
    const resent = await verifyCall(t, account, "POST", `/${id}/resend`, {});
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body.data.channels).toEqual(["sms", "whatsapp"]);

    const plain = await codeAccount({ whatsapp: false, caller: true });
    const other = (await start(t, plain.account, { recipient: freshNumber() })).body.data.verification_id;
    advance(t, 30_000);
    // No WhatsApp template: straight to voice.
    const again = await verifyCall(t, plain.account, "POST", `/${other}/resend`, {});
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.channels).toEqual(["sms", "voice"]);
    advance(t, 30_000);
    const named = await verifyCall(t, plain.account, "POST", `/${other}/resend`, { channel: "whatsapp" });
    expect(named.status).toBe(422);
    expect(named.body.error.code).toBe("verify_channel_unavailable");
    expect(named.body.message).toContain("verify_whatsapp_template");
  });

  it("sends a code by email to an address: stored masked, clear only in the simulator's captured mail", async () => {
    const { t, account } = await codeAccount();
    const before = await milli(t, account.id, "email");
    const started = await start(t, account, { recipient: "Asha@Example.org" });
    expect(started.body.data).toMatchObject({ channel: "email" });
    const id = started.body.data.verification_id;
    const shown = await verifyCall(t, account, "GET", `/${id}`);
    expect(shown.body.data.recipient).toBe("asha@example.org");
    const messageId = shown.body.data.message_id;
    let raw = "";
    await until(async () => {
      const captured = await t.db.store.db
        .selectFrom("email_captured")
        .select("raw")
        .where("message_id", "=", messageId)
        .executeTakeFirst();
      raw = captured?.raw ?? "";
      return raw !== "";
    });
    const code = /(\d{6}) is your verification code/.exec(raw)?.[1];
    expect(code, raw).toBeDefined();
    expect(raw).toContain(`<p>${code} is your verification code`);
    expect(raw).not.toContain(MASK_CHAR);
    const content = await t.db.store.db
      .selectFrom("email_contents")
      .select(["subject", "html", "text"])
      .where("account_id", "=", account.id)
      .execute();
    const detail = await call(t, "GET", `/api/v2/messages/${messageId}`, { headers: keyOf(account) });
    for (const text of [JSON.stringify(content), detail.text]) {
      expect(text).not.toContain(code);
      expect(text).toContain(MASK_CHAR.repeat(6));
    }
    expect(await milli(t, account.id, "email")).toBe(before - 1000);
    // A phone number's channel cannot reach an address.
    advance(t, 30_000);
    const bySms = await verifyCall(t, account, "POST", `/${id}/resend`, { channel: "sms" });
    expect(bySms.status).toBe(422);
    expect(bySms.body.message).toContain("not a phone number");
    expect((await verifyCall(t, account, "POST", `/${id}/check`, { code })).body.data.status).toBe("approved");
    await auditLedger(t);
  });
});

describeEachEngine("Verify conversion analytics", (engine) => {
  const { env, captureFile } = verifyEnv();
  const gateway = useTestGateway(engine, { clock: new ManualClock("2026-11-22T06:30:00Z"), env });

  it("counts starts and approvals per channel and country, with the rate and the mean time to approve", async () => {
    const t = gateway();
    const account = await verifyAccount(t, { caller: true, credits: 100_000 });
    const approveAfter = async (body: Record<string, unknown>, seconds: number | null) => {
      const id = (await start(t, account, body)).body.data.verification_id;
      if (seconds === null) return;
      const messageId = (await verifyCall(t, account, "GET", `/${id}`)).body.data.message_id;
      const code = body.channel === "voice" ? await spokenCode(t, id) : await capturedCode(captureFile, messageId);
      advance(t, seconds * 1000);
      expect((await verifyCall(t, account, "POST", `/${id}/check`, { code })).body.data.status).toBe("approved");
    };
    await approveAfter({ recipient: freshNumber() }, 10);
    await approveAfter({ recipient: freshNumber() }, 20);
    await approveAfter({ recipient: freshNumber() }, null);
    await approveAfter({ recipient: freshNumber(), channel: "voice" }, 30);
    const answer = await verifyCall(t, account, "GET", "/analytics");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data).toEqual({
      from: null,
      to: null,
      total: { started: 4, approved: 3, conversion_rate: 0.75, avg_seconds_to_approve: 20 },
      by_channel_country: [
        {
          channel: "sms",
          country: "IN",
          started: 3,
          approved: 2,
          conversion_rate: 0.6667,
          avg_seconds_to_approve: 15,
        },
        { channel: "voice", country: "IN", started: 1, approved: 1, conversion_rate: 1, avg_seconds_to_approve: 30 },
      ],
    });
    const later = await verifyCall(t, account, "GET", "/analytics?from=2026-11-23T00:00:00Z");
    expect(later.body.data.total).toEqual({
      started: 0,
      approved: 0,
      conversion_rate: 0,
      avg_seconds_to_approve: null,
    });
    expect(later.body.data.by_channel_country).toEqual([]);
    expect((await verifyCall(t, account, "GET", "/analytics?from=soon")).status).toBe(400);
    expect((await verifyCall(t, account, "GET", "/analytics?colour=red")).status).toBe(400);
  });
});

/** A call's code, from its verification's sealed copy (the voice simulator keeps no capture). */
async function spokenCode(t: TestGateway, id: string): Promise<string> {
  const row = await t.db.store.db
    .selectFrom("verifications")
    .select("code_sealed")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return t.gateway.ctx.codeKeeper.unseal(id, row.code_sealed!);
}
