// WhatsApp sends through the whatsapp-cloud connector to a fake Graph API over real HTTP:
// what goes upstream, what the client hears, what is charged, and how Meta's status
// callbacks move a message (and reach the account's webhook).
import { describe, expect, it } from "vitest";
import { ledgerSum } from "../../../src/domain/accounts/index.js";
import { outboxSettled, receiver, until, useReceivers, verify } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { statusCallback } from "./fake-graph.js";
import { useWhatsAppWorld, whatsappWallet } from "./helpers.js";

useReceivers();

describeEachEngine("WhatsApp send", (engine) => {
  const world = useWhatsAppWorld(engine);

  describe("template", () => {
    it("sends the template with ordered params, answers the upstream id, and charges exactly 1 credit", async () => {
      const { t, fake } = world();
      const c = await world().connected({ credits: 5 });
      const answer = await c.send({ to: "+91 98765 43210", template: "order_shipped", params: ["Asha", 1042] });
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe("success");
      const data = answer.body.data;
      expect(data.message_id).toMatch(/^wamid\./);
      expect(Number.isInteger(data.id)).toBe(true);
      expect(data.to).toBe("919876543210");

      const sent = fake.sends().at(-1)!;
      expect(sent.path).toBe(`/v21.0/${c.phoneNumberId}/messages`);
      expect(sent.headers.authorization).toBe(`Bearer ${c.token}`);
      expect(sent.body).toEqual({
        messaging_product: "whatsapp",
        recipient_type: "individual",
        to: "919876543210",
        type: "template",
        template: {
          name: "order_shipped",
          language: { code: "en" },
          components: [
            {
              type: "body",
              parameters: [
                { type: "text", text: "Asha" },
                { type: "text", text: "1042" },
              ],
            },
          ],
        },
      });
      expect(await whatsappWallet(t, c.account.id)).toEqual({ balance: 4, held: 0 });
      expect(await ledgerSum(t.db.store.db, c.account.id, "whatsapp")).toBe(4000);

      const status = await c.v2("GET", `/whatsapp/status/${data.id}`);
      expect(status.status).toBe(200);
      expect(status.body.data).toMatchObject({
        id: data.id,
        message_id: data.message_id,
        to: "919876543210",
        type: "template",
        template: "order_shipped",
        language: "en",
        status: "sent",
        error: null,
        delivered_at: null,
        read_at: null,
        credits: 1,
      });
      expect(status.body.data.sent_at).toMatch(/Z$/);
      const byUpstream = await c.v2("GET", `/whatsapp/status/${encodeURIComponent(data.message_id)}`);
      expect(byUpstream.body.data).toEqual(status.body.data);
    });

    it("picks the asked language, fills a text header, and a media header with its file name", async () => {
      const { fake } = world();
      const c = await world().connected();
      expect(
        (await c.send({ to: "919876543210", template: "order_shipped", language: "hi", params: ["आशा", "7"] })).status,
      ).toBe(200);
      expect((fake.sends().at(-1)!.body as { template: { language: unknown } }).template.language).toEqual({
        code: "hi",
      });

      expect((await c.send({ to: "919876543210", template: "hello", header_params: ["Asha"] })).status).toBe(200);
      expect((fake.sends().at(-1)!.body as { template: unknown }).template).toEqual({
        name: "hello",
        language: { code: "en_US" },
        components: [{ type: "header", parameters: [{ type: "text", text: "Asha" }] }],
      });

      const invoice = await c.send({
        to: "919876543210",
        template: "invoice",
        params: ["INV-7"],
        header_media_url: "https://cdn.example.com/files/inv-7.pdf",
        header_media_type: "document",
        header_filename: "Invoice 7.pdf",
      });
      expect(invoice.status).toBe(200);
      expect((fake.sends().at(-1)!.body as { template: { components: unknown[] } }).template.components[0]).toEqual({
        type: "header",
        parameters: [
          {
            type: "document",
            document: { link: "https://cdn.example.com/files/inv-7.pdf", filename: "Invoice 7.pdf" },
          },
        ],
      });
    });

    it("fills the code button of an authentication template with the code", async () => {
      const { fake } = world();
      const c = await world().connected();
      expect((await c.send({ to: "14155552671", template: "verify_code", params: ["482913"] })).status).toBe(200);
      expect((fake.sends().at(-1)!.body as { template: { components: unknown[] } }).template.components).toEqual([
        { type: "body", parameters: [{ type: "text", text: "482913" }] },
        { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "482913" }] },
      ]);
    });
  });

  describe("session messages", () => {
    // Issue 22, point 4: the extension was looked up in an object, so `.constructor` sent the
    // media under the key "function Object() { [native code] }" and `.__proto__` under
    // "[object Object]" (both refused upstream, 502); a file name that is not valid
    // percent-encoding (`%E0%A4`) answered 500.
    it("takes a media URL's extension and file name as text, never as a member of Object.prototype", async () => {
      const { fake } = world();
      const c = await world().connected();
      await c.customerWrites("919812345678");
      for (const [path, filename] of [
        ["/p/file.constructor", "file.constructor"],
        ["/p/file.__proto__", "file.__proto__"],
        ["/p/a.hasOwnProperty", "a.hasOwnProperty"],
        ["/p/%E0%A4.pdf", "%E0%A4.pdf"],
      ]) {
        const url = `https://cdn.example.com${path}`;
        const sent = await c.send({ to: "919812345678", media_url: url });
        expect(sent.status, `${path}: ${sent.text}`).toBe(200);
        expect(fake.sends().at(-1)!.body).toEqual({
          messaging_product: "whatsapp",
          recipient_type: "individual",
          to: "919812345678",
          type: "document",
          document: { link: url, filename },
        });
      }
    });

    it("sends text and media inside the window", async () => {
      const { fake } = world();
      const c = await world().connected();
      await c.customerWrites("919812345678");
      const text = await c.send({ to: "919812345678", message: "Your table is ready: https://example.com/t/4" });
      expect(text.status).toBe(200);
      expect(fake.sends().at(-1)!.body).toEqual({
        messaging_product: "whatsapp",
        recipient_type: "individual",
        to: "919812345678",
        type: "text",
        text: { body: "Your table is ready: https://example.com/t/4", preview_url: true },
      });
      const image = await c.send({
        to: "919812345678",
        media_url: "https://cdn.example.com/p/menu.jpg",
        caption: "Menu",
      });
      expect(image.status).toBe(200);
      expect(fake.sends().at(-1)!.body).toMatchObject({
        type: "image",
        image: { link: "https://cdn.example.com/p/menu.jpg", caption: "Menu" },
      });
      const doc = await c.send({ to: "919812345678", media_url: "https://cdn.example.com/p/terms.pdf" });
      expect(doc.status).toBe(200);
      expect(fake.sends().at(-1)!.body).toMatchObject({
        type: "document",
        document: { link: "https://cdn.example.com/p/terms.pdf", filename: "terms.pdf" },
      });
      const voice = await c.send({ to: "919812345678", media_url: "https://cdn.example.com/a/n", media_type: "audio" });
      expect(voice.status).toBe(200);
      expect(fake.sends().at(-1)!.body).toMatchObject({
        type: "audio",
        audio: { link: "https://cdn.example.com/a/n" },
      });
      const max = await c.send({ to: "919812345678", message: "é".repeat(4096) });
      expect(max.status).toBe(200);
      // Lines and tabs are text; other control characters are refused (errors.test.ts).
      const lines = await c.send({ to: "919812345678", message: "Table 4\r\nReady\tnow" });
      expect(lines.status, lines.text).toBe(200);
      expect(fake.sends().at(-1)!.body).toMatchObject({ text: { body: "Table 4\r\nReady\tnow" } });
    });
  });

  describe("statuses from Meta's webhook", () => {
    it("moves sent → delivered → read, ignores what comes late, and tells the account's webhook", async () => {
      const { t } = world();
      const c = await world().connected();
      const hook = await receiver();
      await c.v2("PUT", "/webhooks", { delivery_report: hook.url });
      const secret = (await c.v2("GET", "/webhooks")).body.data.secret as string;
      const sent = (await c.send({ to: "919876543210", template: "order_shipped", params: ["A", "1"] })).body.data;
      const status = (
        s: "sent" | "delivered" | "read" | "failed",
        at: number,
        errors?: { code: number; title: string }[],
      ) =>
        world().callback(
          statusCallback({
            wabaId: c.wabaId,
            phoneNumberId: c.phoneNumberId,
            messageId: sent.message_id,
            status: s,
            recipientId: "919876543210",
            at,
            ...(errors ? { errors } : {}),
          }),
        );
      const base = Math.floor(Date.now() / 1000) * 1000;
      // Read arrives before delivered; then delivered, a repeated read and a late failure change nothing.
      expect((await status("sent", base)).status).toBe(200);
      expect((await status("read", base + 4000)).status).toBe(200);
      expect((await status("delivered", base + 2000)).status).toBe(200);
      await status("read", base + 9000);
      await status("failed", base + 9000, [{ code: 131026, title: "Message undeliverable" }]);

      const after = (await c.v2("GET", `/whatsapp/status/${sent.id}`)).body.data;
      expect(after.status).toBe("read");
      expect(after.read_at).toBe(new Date(base + 4000).toISOString().replace(/\.\d{3}Z$/, "Z"));
      expect(after.delivered_at).toBe(new Date(base + 2000).toISOString().replace(/\.\d{3}Z$/, "Z"));
      expect(after.error).toBeNull();

      // Each callback is applied before its answer: the outbox has every event they caused.
      await outboxSettled(t.db.store, hook.url);
      const events = hook.received.map((r) => verify(secret, r) as Record<string, unknown>);
      expect(events.map((e) => e.status)).toEqual(["sent", "read"]);
      expect(events.map((e) => e.broadcast_id)).toEqual([String(sent.id), String(sent.id)]);
      expect(events[1]).toEqual({
        event: "delivery_report",
        message_id: sent.message_id,
        status: "read",
        delivered_at: after.read_at,
        recipient: "919876543210",
        channel: "whatsapp",
        id: sent.id,
        broadcast_id: String(sent.id),
      });
      expect(await whatsappWallet(t, c.account.id)).toEqual({ balance: 9, held: 0 });
    });

    it("fails a sent or delivered message with the error attached, still charged", async () => {
      const { t } = world();
      const c = await world().connected();
      const hook = await receiver();
      await c.v2("PUT", "/webhooks", { delivery_report: hook.url });
      const sent = (await c.send({ to: "919876543210", template: "order_shipped", params: ["A", "1"] })).body.data;
      const at = Date.now();
      const base = {
        wabaId: c.wabaId,
        phoneNumberId: c.phoneNumberId,
        messageId: sent.message_id,
        recipientId: "919876543210",
      };
      await world().callback(statusCallback({ ...base, status: "delivered", at }));
      await world().callback(
        statusCallback({
          ...base,
          status: "failed",
          at: at + 1000,
          errors: [{ code: 131050, title: "User stopped marketing messages", details: "The user opted out." }],
        }),
      );
      // A delivered after failed does not bring it back.
      await world().callback(statusCallback({ ...base, status: "delivered", at: at + 2000 }));
      const after = (await c.v2("GET", `/whatsapp/status/${sent.id}`)).body.data;
      expect(after.status).toBe("failed");
      expect(after.error).toEqual({
        code: 131050,
        message: "User stopped marketing messages (The user opted out.)",
      });
      expect(after.failed_at).toMatch(/Z$/);
      expect(after.credits).toBe(1);
      expect(await whatsappWallet(t, c.account.id)).toEqual({ balance: 9, held: 0 });
      await until(() => hook.received.length >= 3);
      const failed = hook.bodies().find((b) => b.status === "failed");
      expect(failed).toMatchObject({
        message_id: sent.message_id,
        error: { code: 131050, title: "User stopped marketing messages", details: "The user opted out." },
      });
      // The webhook and the status call give the code as the same value, of the same type.
      expect((failed!.error as { code: unknown }).code).toBe(after.error.code);
      expect(hook.bodies().map((b) => b.status)).toEqual(["sent", "delivered", "failed"]);
    });

    it("applies a status that arrives before the send committed, once the send is known", async () => {
      const c = await world().connected();
      const sent = (await c.send({ to: "919876543210", template: "order_shipped", params: ["A", "1"] })).body.data;
      const { t } = world();
      // Hide the upstream id as if the send had not committed yet, deliver the status, then reveal it.
      await t.db.store.db
        .updateTable("messages")
        .set({ upstream_id: null })
        .where("upstream_id", "=", sent.message_id)
        .execute();
      await world().callback(
        statusCallback({
          wabaId: c.wabaId,
          phoneNumberId: c.phoneNumberId,
          messageId: sent.message_id,
          status: "delivered",
          recipientId: "919876543210",
        }),
      );
      await t.db.store.db
        .updateTable("messages")
        .set({ upstream_id: sent.message_id })
        .where("broadcast_id", "=", String(sent.id))
        .where("channel", "=", "whatsapp")
        .execute();
      await until(
        async () => (await c.v2("GET", `/whatsapp/status/${sent.id}`)).body.data.status === "delivered",
        5000,
      );
    });

    it("answers 404 for another account's message and for unknown ids", async () => {
      const a = await world().connected();
      const b = await world().connected();
      const sent = (await a.send({ to: "919876543210", template: "order_shipped", params: ["A", "1"] })).body.data;
      expect((await b.v2("GET", `/whatsapp/status/${sent.id}`)).status).toBe(404);
      expect((await b.v2("GET", `/whatsapp/status/${encodeURIComponent(sent.message_id)}`)).status).toBe(404);
      expect((await a.v2("GET", "/whatsapp/status/999999999")).status).toBe(404);
    });
  });
});
