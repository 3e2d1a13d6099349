// Why a message failed, on every channel, through a real gateway and its simulators: the status
// call and the delivery_report webhook both carry the code and a description, the same ones,
// whether the message failed before the carrier (refunded) or after it (not refunded).
import { expect, it } from "vitest";
import { addEmailDomain } from "../../../src/channels/email/domains.js";
import { approveCallerIdFor } from "../../../src/channels/voice/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { postEmail } from "../../channels/email/helpers.js";
import { CALLER, callParams, FAST_VOICE_SIMULATOR, placeCall } from "../../channels/voice/helpers.js";
import { connectSimulatedWhatsApp } from "../../channels/whatsapp/helpers.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, keyOf, sendSms, statusOf } from "../../helpers/sms.js";
import { receiver, until, useReceivers } from "../webhooks/receiver.js";

useReceivers();

describeEachEngine("why a message failed", (engine) => {
  const gateway = useTestGateway(engine, {
    env: {
      ...FAST_SIMULATOR,
      ...FAST_VOICE_SIMULATOR,
      WHATSAPP_SIMULATOR_LATENCY_MS: "40",
      SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
    },
  });

  it("tells the code and a description in the status answer and the delivery_report webhook, on every channel", async () => {
    const t = gateway();
    const hooks = await receiver();
    const account = await buildAccount(t, { credits: { sms: 10, voice: 10, email: 10, whatsapp: 10 } });
    await approveCallerIdFor({ store: t.db.store, clock: t.clock, actor: cliActor() }, account.username, CALLER);
    await addEmailDomain(t.db.store.db, t.clock, account.id, "shop.example.com", { approve: true });
    await connectSimulatedWhatsApp(t, account.id);
    const set = await call(t, "PUT", "/api/v2/webhooks", {
      headers: keyOf(account),
      json: { delivery_report: hooks.url },
    });
    expect(set.status).toBe(200);

    const sms = async (recipient: string) => {
      const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient, message: "hello" });
      expect(sent.status, sent.text).toBe(200);
      return sent.body.data.message_id as string;
    };
    // The simulators' magic numbers: each ends its message in a known way.
    const undelivered = await sms("9876500001");
    const rejected = await sms("9876500002");
    const delivered = await sms("9876543210");
    const busy = await placeCall(t, "JSON", callParams(account, { to: "9876500004" }));
    const unanswered = await placeCall(t, "JSON", callParams(account, { to: "9876500006" }));
    expect([busy.status, unanswered.status]).toEqual([200, 200]);
    const email = await postEmail(t, {
      api_key: account.apiKey,
      from: "news@shop.example.com",
      to: "asha+bounce@example.org",
      subject: "Your order",
      html: "<p>Hello</p>",
    });
    expect(email.status, email.text).toBe(200);
    const whatsapp = await call(t, "POST", "/api/v2/whatsapp/send", {
      headers: keyOf(account),
      json: { to: "919876500002", template: "hello_world" },
    });
    expect(whatsapp.status, whatsapp.text).toBe(200);

    const listed = async () => (await call(t, "GET", "/api/v2/messages", { headers: keyOf(account) })).body.data;
    await until(async () =>
      (await listed()).every((m: { status: string }) => ["delivered", "failed"].includes(m.status)),
    );
    const byMobile = new Map((await listed()).map((m: { mobile: string }) => [m.mobile, m]));
    // biome-ignore lint/suspicious/noExplicitAny: rows are read field by field
    const errorOf = (mobile: string): any => (byMobile.get(mobile) as { error?: unknown }).error;

    expect(errorOf("9876500001")).toEqual({ code: "UNDELIV", message: "Simulated: not delivered to handset." });
    expect(errorOf("9876500002")).toEqual({ code: "rejected", message: "Simulated carrier rejected the message." });
    // The carrier that refused it at submit stays on the message: support can tell which one did.
    const refusedBy = await t.db.store.db
      .selectFrom("messages")
      .select("connector")
      .where("id", "=", rejected)
      .executeTakeFirstOrThrow();
    expect(refusedBy.connector).toBe("simulator");
    expect(errorOf("9876543210")).toBeUndefined();
    expect(errorOf("9876500004")).toEqual({ code: "busy", message: "The line was busy." });
    expect(errorOf("9876500006")).toEqual({ code: "no-answer", message: "The call was not answered." });
    expect(errorOf("asha+bounce@example.org")).toEqual({
      code: "bounced",
      message: "550 5.1.1 <asha+bounce@example.org>: Recipient address rejected (simulated)",
    });
    expect(errorOf("919876500002")).toMatchObject({ code: "131026", message: expect.stringMatching(/\S/) });
    // The status call answers the same as the list.
    for (const id of [undelivered, rejected, delivered]) {
      const row = [...byMobile.values()].find((m) => (m as { message_id: string }).message_id === id);
      expect((await statusOf(t, account, id)).body.data).toEqual(row);
    }

    // Every failed event carries the message's error, and only failed events carry one.
    await until(() => hooks.bodies().filter((b) => b.status === "failed").length === 6);
    const events = hooks.bodies();
    for (const event of events) {
      if (event.status !== "failed") {
        expect(event.error, JSON.stringify(event)).toBeUndefined();
        continue;
      }
      const row = [...byMobile.values()].find((m) => (m as { mobile: string }).mobile === event.recipient) as {
        error: { code: string; message: string };
      };
      const error = event.error as { code: string | number; message: string };
      expect({ code: String(error.code), message: error.message }, JSON.stringify(event)).toEqual(row.error);
    }
    // WhatsApp's event keeps WhatsApp's own fields beside the description.
    const whatsappFailed = events.find((e) => e.channel === "whatsapp" && e.status === "failed")!;
    expect(whatsappFailed.error).toMatchObject({
      code: 131026,
      title: expect.any(String),
      message: expect.any(String),
    });
  });
});
