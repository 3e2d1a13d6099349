// The 24-hour customer service window on a controllable clock, customers' messages from Meta's
// webhook (stored once, passed to the account's inbound_whatsapp webhook), and the webhook's
// own checks: the verify-token challenge and X-Hub-Signature-256.
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { signMetaPayload } from "../../../src/channels/whatsapp/meta-webhook.js";
import { outboxSettled, receiver, useReceivers, verify } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { call } from "../../helpers/gateway.js";
import { inboundCallback, mergeCallbacks, statusCallback } from "./fake-graph.js";
import { APP_SECRET, expectError, useWhatsAppWorld, VERIFY_TOKEN, whatsappWallet } from "./helpers.js";

useReceivers();

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describeEachEngine("WhatsApp 24-hour window", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const world = useWhatsAppWorld(engine, { clock });

  it("is open 23h59m after the customer's message and closed at 24h01m; a new message opens it again", async () => {
    const c = await world().connected({ credits: 10 });
    const customer = "919812300001";
    const text = { to: customer, message: "Your order is on its way." };
    expectError(await c.send(text), 422, "template_required");

    const wrote = clock.now().getTime();
    await c.customerWrites(customer, wrote);
    expect((await c.send(text)).status).toBe(200);

    clock.set(new Date(wrote + 23 * HOUR + 59 * MINUTE));
    expect((await c.send(text)).status).toBe(200);
    expect((await c.send({ to: customer, media_url: "https://cdn.example.com/x.png" })).status).toBe(200);

    clock.set(new Date(wrote + 24 * HOUR + MINUTE));
    const closed = await c.send(text);
    expectError(closed, 422, "template_required");
    expect(closed.body.message).toContain("closed at 2026-11-23T06:30:00Z");
    expectError(await c.send({ to: customer, media_url: "https://cdn.example.com/x.png" }), 422, "template_required");
    // Templates need no window.
    expect((await c.send({ to: customer, template: "order_shipped", params: ["A", "1"] })).status).toBe(200);

    // A new message opens it again; an older one delivered late by Meta does not move it back.
    const again = clock.now().getTime();
    await c.customerWrites(customer, again);
    expect((await c.send(text)).status).toBe(200);
    await c.customerWrites(customer, wrote + HOUR);
    clock.set(new Date(again + 23 * HOUR));
    expect((await c.send(text)).status).toBe(200);
    // Refused sends cost nothing: 6 sent.
    expect(await whatsappWallet(world().t, c.account.id)).toEqual({ balance: 4, held: 0 });
  });

  it("is per account and per customer", async () => {
    const a = await world().connected();
    const b = await world().connected();
    await a.customerWrites("919812300002", clock.now().getTime());
    expect((await a.send({ to: "919812300002", message: "hi" })).status).toBe(200);
    expectError(await a.send({ to: "919812300003", message: "hi" }), 422, "template_required");
    expectError(await b.send({ to: "919812300002", message: "hi" }), 422, "template_required");
  });
});

describeEachEngine("WhatsApp inbound messages and Meta's webhook", (engine) => {
  const world = useWhatsAppWorld(engine);

  it("stores a customer's message once, even when Meta delivers it twice, and passes it to the account", async () => {
    const { t } = world();
    const c = await world().connected();
    const hook = await receiver();
    await c.v2("PUT", "/webhooks", { inbound_whatsapp: hook.url });
    const secret = (await c.v2("GET", "/webhooks")).body.data.secret as string;
    const at = Math.floor(Date.now() / 1000) * 1000;
    const payload = inboundCallback({
      wabaId: c.wabaId,
      phoneNumberId: c.phoneNumberId,
      displayPhoneNumber: "15550009999",
      from: "919812300010",
      messageId: "wamid.in-1",
      text: "Is my order shipped?",
      profileName: "Asha",
      at,
    });
    expect((await world().callback(payload)).status).toBe(200);
    expect((await world().callback(payload)).status).toBe(200);
    const image = inboundCallback({
      wabaId: c.wabaId,
      phoneNumberId: c.phoneNumberId,
      from: "919812300010",
      messageId: "wamid.in-2",
      type: "image",
      mediaId: "55501",
      caption: "this one",
      at,
    });
    expect((await world().callback(image)).status).toBe(200);
    const stored = await t.db.store.db
      .selectFrom("whatsapp_inbound")
      .select(["upstream_id", "from_number", "type", "text", "media_id"])
      .where("account_id", "=", c.account.id)
      .orderBy("id")
      .execute();
    expect(stored).toEqual([
      {
        upstream_id: "wamid.in-1",
        from_number: "919812300010",
        type: "text",
        text: "Is my order shipped?",
        media_id: null,
      },
      { upstream_id: "wamid.in-2", from_number: "919812300010", type: "image", text: "this one", media_id: "55501" },
    ]);
    // Each callback is stored before its answer: the outbox has every event they caused.
    await outboxSettled(t.db.store, hook.url);
    expect(hook.received).toHaveLength(2);
    expect(verify(secret, hook.received[0]!)).toEqual({
      event: "inbound_whatsapp",
      from: "919812300010",
      to: "15550009999",
      message: "Is my order shipped?",
      type: "text",
      message_id: "wamid.in-1",
      media_id: null,
      profile_name: "Asha",
      received_at: new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z"),
    });
    // The window is open now.
    expect((await c.send({ to: "919812300010", message: "Yes, today." })).status).toBe(200);
  });

  it("handles a batch of statuses and messages in one callback; unknown numbers are acknowledged and ignored", async () => {
    const c = await world().connected();
    const sent = (await c.send({ to: "919876543210", template: "order_shipped", params: ["A", "1"] })).body.data;
    const batch = mergeCallbacks(
      statusCallback({
        wabaId: c.wabaId,
        phoneNumberId: c.phoneNumberId,
        messageId: sent.message_id,
        status: "delivered",
        recipientId: "919876543210",
      }),
      inboundCallback({ wabaId: c.wabaId, phoneNumberId: c.phoneNumberId, from: "919812300011", text: "hi" }),
      inboundCallback({ wabaId: "1", phoneNumberId: "999000", from: "919812300011", text: "nobody's" }),
    );
    expect((await world().callback(batch)).status).toBe(200);
    expect((await c.v2("GET", `/whatsapp/status/${sent.id}`)).body.data.status).toBe("delivered");
    expect((await c.send({ to: "919812300011", message: "hello" })).status).toBe(200);
  });

  it("refuses callbacks without a valid X-Hub-Signature-256 and changes nothing", async () => {
    const { t, fake } = world();
    const c = await world().connected();
    const payload = inboundCallback({
      wabaId: c.wabaId,
      phoneNumberId: c.phoneNumberId,
      from: "919812300012",
      text: "x",
    });
    for (const signature of ["", "sha256=00", `sha256=${"ab".repeat(32)}`, "sha1=abc"]) {
      const answer = await world().callback(payload, signature);
      expect(answer.status).toBe(401);
    }
    // Signed with another app's secret.
    const forged = await fake.sendWebhook(`${t.url}/webhooks/whatsapp`, payload, { appSecret: "someone-else" });
    expect(forged.status).toBe(401);
    expectError(await c.send({ to: "919812300012", message: "x" }), 422, "template_required");

    const garbage = await fetch(`${t.url}/webhooks/whatsapp`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": signMetaPayload("{not json", APP_SECRET) },
      body: "{not json",
    });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { message: string }).message).toMatch(
      /^Not a WhatsApp callback: the body is not JSON \(.+\)\.$/,
    );
    const wrongObject = JSON.stringify({ object: "page", entry: [] });
    const page = await fetch(`${t.url}/webhooks/whatsapp`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": signMetaPayload(wrongObject, APP_SECRET) },
      body: wrongObject,
    });
    expect(page.status).toBe(400);
    // Said once: "Not a WhatsApp callback: expected …", not behind "Not a WhatsApp Business Account callback: ".
    expect(((await page.json()) as { message: string }).message).toMatch(
      /^Not a WhatsApp callback: expected \{"object":"whatsapp_business_account"/,
    );
  });

  it("answers Meta's verification challenge only with the right token", async () => {
    const { t } = world();
    const ok = await fetch(
      `${t.url}/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("1158201444");
    const wrong = await call(t, "GET", "/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1");
    expect(wrong.status).toBe(403);
    const noMode = await call(t, "GET", `/webhooks/whatsapp?hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`);
    expect(noMode.status).toBe(403);
    // A challenge given twice is bad input, answered as such (it was a 500).
    const twice = await call(
      t,
      "GET",
      `/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1&hub.challenge=2`,
    );
    expect(twice.status).toBe(400);
    expect(twice.body.error.code).toBe("invalid_request");
  });
});

describe("WhatsApp webhook without an app secret", () => {
  const world = useWhatsAppWorld("sqlite", { env: { WHATSAPP_APP_SECRET: "", WHATSAPP_VERIFY_TOKEN: "" } });

  it("refuses every callback and every verification", async () => {
    const { t } = world();
    const c = await world().connected();
    const answer = await world().callback(
      inboundCallback({ wabaId: c.wabaId, phoneNumberId: c.phoneNumberId, from: "919812300013", text: "x" }),
    );
    expect(answer.status).toBe(403);
    expect(answer.body).toContain("WHATSAPP_APP_SECRET");
    const challenge = await call(t, "GET", "/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=&hub.challenge=1");
    expect(challenge.status).toBe(403);
  });
});
