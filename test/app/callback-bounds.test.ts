// The carrier callbacks beside http-sms bound what they keep (issue 36), through the real server
// on both engines: Meta's WhatsApp webhook (an item whose id is longer than any wamid is not
// stored: on PostgreSQL it answered 500, and Meta delivers a callback again until it is taken),
// the voice provider's status callback (a CallSid longer than any provider's is refused), and
// bounces mailed to the bounce listener (a DSN's diagnostic is kept to 1,000 characters).
import nodemailer from "nodemailer";
import { afterAll, beforeAll, expect, it } from "vitest";
import { twilioSignature } from "../../src/channels/voice/twilio-signature.js";
import { signMetaPayload } from "../../src/channels/whatsapp/meta-webhook.js";
import { updateWhatsAppSettings } from "../../src/channels/whatsapp/settings.js";
import { BOUNCE_DOMAIN, base, closedPort, emailAccount, postEmail, postfixDsn } from "../channels/email/helpers.js";
import { inboundCallback, statusCallback } from "../channels/whatsapp/fake-graph.js";
import { until } from "../domain/webhooks/receiver.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, startTestGateway, type TestGateway } from "../helpers/gateway.js";

const APP_SECRET = "bounds-app-secret-0123456789";
const AUTH_TOKEN = "bounds-auth-token";
const CALLBACK_BASE = "https://voice.example.com";
const PHONE_NUMBER_ID = "555000333444";
const WABA_ID = "400000000077";

describeEachEngine("carrier callbacks bound what they keep", (engine) => {
  let t: TestGateway;
  let bouncePort = 0;
  beforeAll(async () => {
    bouncePort = await closedPort();
    t = await startTestGateway(engine, {
      env: {
        WHATSAPP_APP_SECRET: APP_SECRET,
        VOICE_HTTP_AUTH_TOKEN: AUTH_TOKEN,
        VOICE_CALLBACK_URL: CALLBACK_BASE,
        EMAIL_BOUNCE_DOMAIN: BOUNCE_DOMAIN,
        EMAIL_BOUNCE_PORT: String(bouncePort),
      },
    });
  });
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
  });

  const meta = (payload: unknown) => {
    const body = JSON.stringify(payload);
    return fetch(`${t.url}/webhooks/whatsapp`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": signMetaPayload(body, APP_SECRET) },
      body,
    });
  };

  it("WhatsApp: stores no customer message whose id is longer than any wamid, and leaves out a text longer than Meta's", async () => {
    const account = await buildAccount(t, { credits: { whatsapp: 10 }, sender: null });
    await updateWhatsAppSettings(t.db.store.db, t.clock, account.id, {
      enabled: true,
      phone_number_id: PHONE_NUMBER_ID,
      display_phone_number: "15550003344",
      waba_id: WABA_ID,
      access_token: "simulated",
    });
    const base = { wabaId: WABA_ID, phoneNumberId: PHONE_NUMBER_ID, from: "919812300077" };
    const long = await meta(inboundCallback({ ...base, messageId: `wamid.${"A".repeat(10_000)}`, text: "hi" }));
    expect(long.status).toBe(200);
    expect(await long.text()).toBe("EVENT_RECEIVED");
    const wordy = await meta(inboundCallback({ ...base, messageId: "wamid.wordy", text: "w".repeat(5_000) }));
    expect(wordy.status).toBe(200);
    const fine = await meta(inboundCallback({ ...base, messageId: "wamid.fine", text: "hello" }));
    expect(fine.status).toBe(200);
    const stored = await t.db.store.db
      .selectFrom("whatsapp_inbound")
      .select(["upstream_id", "text"])
      .where("account_id", "=", account.id)
      .orderBy("upstream_id")
      .execute();
    expect(stored).toEqual([
      { upstream_id: "wamid.fine", text: "hello" },
      { upstream_id: "wamid.wordy", text: null },
    ]);
    // A failed status's description is cut, not refused: the status still counts.
    const failed = await meta(
      statusCallback({
        ...base,
        messageId: "wamid.unknown-to-us",
        status: "failed",
        recipientId: "919812300077",
        errors: [{ code: 131026, title: "Message undeliverable", details: "d".repeat(100_000) }],
      }),
    );
    expect(failed.status).toBe(200);
  });

  it("voice: refuses a status callback whose CallSid is longer than any provider's, with a 400 saying so", async () => {
    const url = `${CALLBACK_BASE}/voicecall/v1/status-callback`;
    const post = (callSid: string) => {
      const params = { CallSid: callSid, CallStatus: "completed", AccountSid: "AC123" };
      return fetch(`${t.url}/voicecall/v1/status-callback`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-twilio-signature": twilioSignature(AUTH_TOKEN, url, params),
        },
        body: new URLSearchParams(params).toString(),
      });
    };
    const long = await post(`CA${"0".repeat(10_000)}`);
    expect(long.status).toBe(400);
    expect(await long.text()).toBe("CallSid is longer than 100 characters.");
    // A call the gateway does not know, of a provider's length: acknowledged.
    expect((await post(`CA${"0".repeat(32)}`)).status).toBe(204);
  });

  it("email: keeps 1,000 characters of a bounce's diagnostic, in the message and its event", async () => {
    const account = await emailAccount(t);
    const sent = await postEmail(t, base(account));
    expect(sent.status, sent.text).toBe(200);
    const message = () =>
      t.db.store.db
        .selectFrom("messages")
        .select(["id", "status", "error_message"])
        .where("account_id", "=", account.id)
        .executeTakeFirstOrThrow();
    await until(async () => ["submitted", "delivered"].includes((await message()).status), 10_000);
    const { id } = await message();
    const verp = `bounces+${id}@${BOUNCE_DOMAIN}`;
    // Folded over many lines, as a long header is: 100,000 characters of words.
    const words = Array.from({ length: 10_000 }, (_, i) => `word${String(i).padStart(5, "0")}`);
    const diagnostic = words.map((word, i) => (i % 6 === 5 ? `${word}\r\n   ` : word)).join(" ");
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: bouncePort,
      secure: false,
      ignoreTLS: true,
    });
    try {
      await transport.sendMail({
        envelope: { from: "", to: [verp] },
        raw: postfixDsn({ to: verp, recipient: "asha@example.org", diagnostic: `550 5.1.1 ${diagnostic}` }),
      });
    } finally {
      transport.close();
    }
    await until(async () => (await message()).status === "failed", 10_000);
    expect((await message()).error_message?.length).toBe(1_000);
    const event = await t.db.store.db
      .selectFrom("email_events")
      .select("detail")
      .where("message_id", "=", id)
      .where("kind", "=", "bounced")
      .executeTakeFirstOrThrow();
    expect(event.detail?.length).toBe(1_000);
    expect(event.detail).toMatch(/^550 5\.1\.1 word00000 word00001/);
  });
});
