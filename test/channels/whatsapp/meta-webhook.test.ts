import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  MetaWebhookError,
  parseMetaWebhook,
  signMetaPayload,
  verifyMetaSignature,
} from "../../../src/channels/whatsapp/meta-webhook.js";
import {
  inboundCallback,
  mergeCallbacks,
  startFakeGraph,
  statusCallback,
  templateStatusCallback,
} from "./fake-graph.js";

const SECRET = "0123456789abcdef0123456789abcdef";
const WABA = "102000000000001";
const PHONE = "109000000000001";
const AT = 1_767_225_600_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("verifyMetaSignature", () => {
  const body = Buffer.from(
    JSON.stringify(
      statusCallback({
        wabaId: WABA,
        phoneNumberId: PHONE,
        messageId: "wamid.A",
        status: "sent",
        recipientId: "919876543210",
      }),
    ),
  );
  const valid = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;

  it("accepts the HMAC-SHA256 of the raw body under the app secret", () => {
    expect(signMetaPayload(body, SECRET)).toBe(valid);
    expect(signMetaPayload(body.toString("utf8"), SECRET)).toBe(valid);
    expect(verifyMetaSignature(body, valid, SECRET)).toBe(true);
    expect(verifyMetaSignature(body, valid.toUpperCase().replace("SHA256=", "sha256="), SECRET)).toBe(true);
  });

  it("refuses a wrong secret, a changed body and missing or malformed headers", () => {
    expect(verifyMetaSignature(body, valid, "another-secret")).toBe(false);
    expect(verifyMetaSignature(body, valid, "")).toBe(false);
    const tampered = Buffer.from(body.toString("utf8").replace('"sent"', '"read"'));
    expect(tampered.equals(body)).toBe(false);
    expect(verifyMetaSignature(tampered, valid, SECRET)).toBe(false);
    expect(verifyMetaSignature(body, undefined, SECRET)).toBe(false);
    expect(verifyMetaSignature(body, "", SECRET)).toBe(false);
    expect(verifyMetaSignature(body, valid.slice("sha256=".length), SECRET)).toBe(false);
    expect(verifyMetaSignature(body, valid.replace("sha256=", "sha1="), SECRET)).toBe(false);
    expect(verifyMetaSignature(body, `sha256=${"z".repeat(64)}`, SECRET)).toBe(false);
    expect(verifyMetaSignature(body, valid.slice(0, -2), SECRET)).toBe(false);
    expect(verifyMetaSignature(body, `${valid}00`, SECRET)).toBe(false);
    expect(verifyMetaSignature(body, `sha256=${createHmac("sha1", SECRET).update(body).digest("hex")}`, SECRET)).toBe(
      false,
    );
  });

  it("verifies what the fake posts, byte for byte, and an overridden signature fails", async () => {
    const received: Array<{ raw: Buffer; headers: http.IncomingHttpHeaders }> = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const raw = Buffer.concat(chunks);
        received.push({ raw, headers: req.headers });
        const ok = verifyMetaSignature(raw, req.headers["x-hub-signature-256"] as string | undefined, SECRET);
        res.writeHead(ok ? 200 : 401).end(ok ? "EVENT_RECEIVED" : "bad signature");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const fake = await startFakeGraph();
    cleanups.push(() => fake.close());
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/whatsapp`;
    const payload = inboundCallback({ wabaId: WABA, phoneNumberId: PHONE, from: "919876543210", text: "héllo ✓" });

    expect(await fake.sendWebhook(target, payload, { appSecret: SECRET })).toEqual({
      status: 200,
      body: "EVENT_RECEIVED",
    });
    expect(received[0]!.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(received[0]!.raw.toString("utf8"))).toEqual(payload);
    const forged = await fake.sendWebhook(target, payload, {
      appSecret: SECRET,
      signature: signMetaPayload("{}", SECRET),
    });
    expect(forged.status).toBe(401);
    expect((await fake.sendWebhook(target, payload, { appSecret: "wrong" })).status).toBe(401);
  });
});

describe("parseMetaWebhook", () => {
  it("reads a status callback", () => {
    const body = statusCallback({
      wabaId: WABA,
      phoneNumberId: PHONE,
      messageId: "wamid.A",
      status: "delivered",
      recipientId: "919876543210",
      at: AT + 999,
      pricingCategory: "marketing",
    });
    expect(parseMetaWebhook(body)).toEqual({
      statuses: [
        {
          phoneNumberId: PHONE,
          messageId: "wamid.A",
          status: "delivered",
          at: AT,
          recipientId: "919876543210",
          errors: [],
          pricingCategory: "marketing",
          billable: true,
        },
      ],
      messages: [],
      templates: [],
      ignored: 0,
    });
  });

  it("reads a failed status with its errors", () => {
    const body = statusCallback({
      wabaId: WABA,
      phoneNumberId: PHONE,
      messageId: "wamid.F",
      status: "failed",
      recipientId: "919876543210",
      at: AT,
      errors: [
        {
          code: 131047,
          title: "Re-engagement message",
          message: "Re-engagement message",
          details: "More than 24 hours have passed.",
        },
        { code: 131026, title: "Message undeliverable" },
      ],
    });
    const [status] = parseMetaWebhook(body).statuses;
    expect(status).toEqual({
      phoneNumberId: PHONE,
      messageId: "wamid.F",
      status: "failed",
      at: AT,
      recipientId: "919876543210",
      errors: [
        {
          code: 131047,
          title: "Re-engagement message",
          message: "Re-engagement message",
          details: "More than 24 hours have passed.",
        },
        { code: 131026, title: "Message undeliverable" },
      ],
    });
  });

  it("reads inbound messages of each type with the sender's profile name", () => {
    const base = {
      wabaId: WABA,
      phoneNumberId: PHONE,
      displayPhoneNumber: "15551234567",
      from: "919876543210",
      at: AT,
    };
    const read = (o: Parameters<typeof inboundCallback>[0]) => parseMetaWebhook(inboundCallback(o)).messages[0];
    expect(read({ ...base, messageId: "wamid.T", text: "Hi there", profileName: "Asha" })).toEqual({
      phoneNumberId: PHONE,
      displayPhoneNumber: "15551234567",
      messageId: "wamid.T",
      from: "919876543210",
      at: AT,
      type: "text",
      text: "Hi there",
      profileName: "Asha",
    });
    expect(read({ ...base, type: "image", mediaId: "1234", caption: "a cat" })).toMatchObject({
      type: "image",
      mediaId: "1234",
      text: "a cat",
    });
    const audio = read({ ...base, type: "audio", mediaId: "5678" });
    expect(audio).toMatchObject({ type: "audio", mediaId: "5678" });
    expect(audio).not.toHaveProperty("text");
    expect(read({ ...base, type: "button", text: "Yes" })).toMatchObject({
      type: "button",
      text: "Yes",
      payload: "Yes",
    });
    expect(read({ ...base, type: "interactive", text: "Track order" })).toMatchObject({
      text: "Track order",
      payload: "reply-1",
    });
    expect(read({ ...base, type: "reaction", text: "❤️" })).toMatchObject({
      text: "❤️",
      contextMessageId: "wamid.reacted",
    });
    const unsupported = read({ ...base, type: "unsupported" });
    expect(unsupported).toMatchObject({ type: "unsupported", messageId: expect.stringMatching(/^wamid\./) });
    expect(unsupported).not.toHaveProperty("text");
  });

  it("reads a template status change (numeric id; reason NONE left out)", () => {
    const approved = templateStatusCallback({
      wabaId: WABA,
      templateId: "594425479261596",
      name: "order_update",
      language: "en_US",
      event: "APPROVED",
    });
    expect(parseMetaWebhook(approved).templates).toEqual([
      { wabaId: WABA, templateId: "594425479261596", name: "order_update", language: "en_US", event: "APPROVED" },
    ]);
    const rejected = templateStatusCallback({
      wabaId: WABA,
      templateId: "7",
      name: "promo",
      language: "hi",
      event: "REJECTED",
      reason: "INVALID_FORMAT",
    });
    expect(parseMetaWebhook(rejected).templates[0]).toMatchObject({
      templateId: "7",
      event: "REJECTED",
      reason: "INVALID_FORMAT",
    });
  });

  it("keeps document order across batched entries and changes, counting what it does not handle", () => {
    const status = (messageId: string, s: "sent" | "delivered" | "read" | "failed", at: number) =>
      statusCallback({ wabaId: WABA, phoneNumberId: PHONE, messageId, status: s, recipientId: "919876543210", at });
    const body = mergeCallbacks(
      status("wamid.2", "read", AT + 3000),
      inboundCallback({
        wabaId: WABA,
        phoneNumberId: PHONE,
        from: "919800000001",
        messageId: "wamid.in1",
        text: "one",
      }),
      status("wamid.1", "delivered", AT + 1000),
      templateStatusCallback({ wabaId: WABA, templateId: "11", name: "a", language: "en", event: "PAUSED" }),
      status("wamid.1", "sent", AT),
      inboundCallback({
        wabaId: WABA,
        phoneNumberId: PHONE,
        from: "919800000002",
        messageId: "wamid.in2",
        text: "two",
      }),
      templateStatusCallback({ wabaId: WABA, templateId: "12", name: "b", language: "en", event: "FLAGGED" }),
    ) as { entry: Array<{ changes: unknown[] }> };
    // Several statuses in one change, an unknown status among them, and an unknown change field.
    const first = body.entry[0]!.changes[0] as { value: { statuses: Array<Record<string, unknown>> } };
    first.value.statuses.push({ ...first.value.statuses[0], id: "wamid.3", status: "deleted" });
    first.value.statuses.push({ ...first.value.statuses[0], id: "wamid.4", status: "failed" });
    body.entry[1]!.changes.push({ field: "account_update", value: { event: "VERIFIED_ACCOUNT" } });

    const parsed = parseMetaWebhook(body);
    expect(parsed.statuses.map((s) => [s.messageId, s.status, s.at])).toEqual([
      ["wamid.2", "read", AT + 3000],
      ["wamid.4", "failed", AT + 3000],
      ["wamid.1", "delivered", AT + 1000],
      ["wamid.1", "sent", AT],
    ]);
    expect(parsed.messages.map((m) => [m.messageId, m.text])).toEqual([
      ["wamid.in1", "one"],
      ["wamid.in2", "two"],
    ]);
    expect(parsed.templates.map((t) => [t.templateId, t.event])).toEqual([
      ["11", "PAUSED"],
      ["12", "FLAGGED"],
    ]);
    expect(parsed.ignored).toBe(2);
  });

  it("refuses a body that is not a WhatsApp callback", () => {
    for (const body of [
      null,
      undefined,
      "text",
      42,
      [],
      {},
      { object: "page", entry: [] },
      { object: "whatsapp_business_account" },
      { object: "whatsapp_business_account", entry: {} },
    ]) {
      expect(() => parseMetaWebhook(body)).toThrow(MetaWebhookError);
    }
    expect(parseMetaWebhook({ object: "whatsapp_business_account", entry: [] })).toEqual({
      statuses: [],
      messages: [],
      templates: [],
      ignored: 0,
    });
  });

  it("skips and counts malformed entries, changes and items, keeping the good ones", () => {
    const good = statusCallback({
      wabaId: WABA,
      phoneNumberId: PHONE,
      messageId: "wamid.ok",
      status: "read",
      recipientId: "1",
      at: AT,
    }) as { entry: Array<{ changes: Array<{ value: { statuses: unknown[] } }> }> };
    const value = good.entry[0]!.changes[0]!.value;
    const valid = value.statuses[0] as Record<string, unknown>;
    value.statuses.push(
      null,
      "wamid.x",
      { ...valid, id: 42 },
      { ...valid, timestamp: "soon" },
      { ...valid, status: ["read"] },
      { ...valid, recipient_id: undefined },
      {
        ...valid,
        id: "wamid.ok2",
        errors: [{ code: "131047", title: "x" }, null, { code: 131000, title: 5, message: "Something went wrong" }],
      },
    );
    const body = {
      object: "whatsapp_business_account",
      entry: [
        null,
        { id: WABA },
        { id: WABA, changes: [null, { field: "messages" }, { field: "messages", value: { statuses: [valid] } }] },
        {
          id: WABA,
          changes: [
            {
              field: "messages",
              value: {
                metadata: { phone_number_id: PHONE },
                messages: [
                  { id: "wamid.m", from: "1", type: "text" },
                  { id: "wamid.m2", from: "1", timestamp: "1", type: "text", text: "not an object" },
                ],
              },
            },
          ],
        },
        {
          changes: [
            {
              field: "message_template_status_update",
              value: {
                event: "APPROVED",
                message_template_id: 1,
                message_template_name: "a",
                message_template_language: "en",
              },
            },
          ],
        },
        {
          id: WABA,
          changes: [
            {
              field: "message_template_status_update",
              value: {
                event: "APPROVED",
                message_template_id: 1.5,
                message_template_name: "a",
                message_template_language: "en",
              },
            },
          ],
        },
        ...good.entry,
      ],
    };
    const parsed = parseMetaWebhook(body);
    expect(parsed.statuses.map((s) => s.messageId)).toEqual(["wamid.ok", "wamid.ok2"]);
    expect(parsed.statuses[1]!.errors).toEqual([
      { code: 131000, title: "Something went wrong", message: "Something went wrong" },
    ]);
    expect(parsed.messages).toEqual([
      { phoneNumberId: PHONE, displayPhoneNumber: "", messageId: "wamid.m2", from: "1", at: 1000, type: "text" },
    ]);
    expect(parsed.templates).toEqual([]);
    // 2 entries, 3 changes, 1 message without a timestamp, 2 template changes, 6 statuses.
    expect(parsed.ignored).toBe(14);
  });
});
