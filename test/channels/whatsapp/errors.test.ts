// Every row of the spec's WhatsApp error table, produced through the real server, plus the
// 400s of bad input and what is charged (nothing) when the upstream fails.
import { describe, expect, it } from "vitest";
import { updateWhatsAppSettings } from "../../../src/channels/whatsapp/settings.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { call } from "../../helpers/gateway.js";
import { metaErrorBody } from "./fake-graph.js";
import { expectError, useWhatsAppWorld, whatsappWallet } from "./helpers.js";

const TEMPLATE = { to: "919876543210", template: "order_shipped", params: ["Asha", "1042"] };

describeEachEngine("WhatsApp errors", (engine) => {
  const world = useWhatsAppWorld(engine);

  describe("the spec's table", () => {
    it("401 without or with a wrong API key", async () => {
      const { t } = world();
      expectError(await call(t, "POST", "/api/v2/whatsapp/send", { json: TEMPLATE }), 401, "unauthorized");
      const wrong = await call(t, "POST", "/api/v2/whatsapp/send", {
        json: TEMPLATE,
        headers: { authorization: "Bearer sk_nope" },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.status).toBe("error");
    });

    it("402 when the WhatsApp wallet is short, with nothing sent", async () => {
      const { fake } = world();
      const c = await world().connected({ credits: 0 });
      const before = fake.sends().length;
      expectError(await c.send(TEMPLATE), 402, "insufficient_credits");
      expect(fake.sends().length).toBe(before);
    });

    it("403 when the module is off", async () => {
      const { t } = world();
      const c = await world().connected();
      await updateWhatsAppSettings(t.db.store.db, t.clock, c.account.id, { enabled: false });
      const answer = await c.send(TEMPLATE);
      expectError(answer, 403, "module_disabled");
      expect(answer.body.message).toContain("not enabled");
      expectError(await c.v2("GET", "/whatsapp/templates"), 403, "module_disabled");
    });

    it("404 for an unknown template, a missing translation, and one not approved: pending, rejected, paused", async () => {
      const { t, fake } = world();
      const c = await world().connected({ credits: 3 });
      expectError(await c.send({ ...TEMPLATE, template: "no_such_template" }), 404, "template_not_found");
      const translation = await c.send({ ...TEMPLATE, language: "ta" });
      expectError(translation, 404, "template_not_found");
      expect(translation.body.message).toContain("en, hi");
      const before = fake.sends().length;
      for (const [template, status] of [
        ["draft_notice", "pending"],
        ["old_promo", "rejected"],
        ["flash_sale", "paused"],
      ]) {
        const answer = await c.send({ to: "919876543210", template, params: ["x"] });
        expectError(answer, 404, "template_not_found");
        expect(answer.body.message).toContain(`is ${status}`);
      }
      const rejected = await c.send({ to: "919876543210", template: "old_promo", params: ["x"] });
      expect(rejected.body.message).toContain("Rejected by WhatsApp (TAG_CONTENT_MISMATCH)");
      expect(fake.sends().length).toBe(before);

      // Paused (132015) or disabled (132016) upstream since the last sync: the same 404, nothing charged.
      for (const code of [132015, 132016]) {
        fake.scriptNext({
          status: 400,
          body: metaErrorBody({ message: `(#${code}) Template is paused`, type: "OAuthException", code }),
        });
        const answer = await c.send(TEMPLATE);
        expectError(answer, 404, "template_not_found");
        expect(answer.body.error.upstream).toMatchObject({ code, http_status: 400 });
      }
      expect(await whatsappWallet(t, c.account.id)).toEqual({ balance: 3, held: 0 });
    });

    it("404 for a template name or a status id holding U+0000, as for any unknown one", async () => {
      const { t, fake } = world();
      const c = await world().connected({ credits: 1 });
      const before = fake.sends().length;
      const answer = await c.send({ ...TEMPLATE, template: "order_shipped\u0000" });
      expectError(answer, 404, "template_not_found");
      expect(answer.body.error.field).toBe("template");
      expectError(await c.v2("GET", "/whatsapp/status/%00"), 404, "not_found");
      expectError(await c.v2("GET", "/whatsapp/status/wamid.%00"), 404, "not_found");
      expect(fake.sends().length).toBe(before);
      expect(await whatsappWallet(t, c.account.id)).toEqual({ balance: 1, held: 0 });
    });

    it("409 when no business account is connected", async () => {
      const { t } = world();
      const c = await world().connected();
      await updateWhatsAppSettings(t.db.store.db, t.clock, c.account.id, { access_token: null });
      expectError(await c.send(TEMPLATE), 409, "no_business_account");
      expectError(await c.v2("GET", "/whatsapp/templates"), 409, "no_business_account");
    });

    it("422 template_required for text and media without an open window", async () => {
      const { fake } = world();
      const c = await world().connected();
      const before = fake.sends().length;
      const text = await c.send({ to: "919876543210", message: "hi" });
      expectError(text, 422, "template_required");
      expect(text.body.message).toContain("send a template");
      expectError(
        await c.send({ to: "919876543210", media_url: "https://cdn.example.com/a.jpg" }),
        422,
        "template_required",
      );
      expect(fake.sends().length).toBe(before);
    });

    it("422 template_required when WhatsApp says the window is closed (131047), nothing charged", async () => {
      const { t, fake } = world();
      const c = await world().connected({ credits: 3 });
      await c.customerWrites("919876543210");
      fake.scriptNext({
        status: 400,
        body: metaErrorBody({
          message: "(#131047) Re-engagement message",
          type: "OAuthException",
          code: 131047,
          details: "Message failed to send because more than 24 hours have passed since the customer last replied.",
        }),
      });
      const answer = await c.send({ to: "919876543210", message: "hi" });
      expectError(answer, 422, "template_required");
      expect(answer.body.error.upstream).toMatchObject({ code: 131047, http_status: 400 });
      expect(await whatsappWallet(t, c.account.id)).toEqual({ balance: 3, held: 0 });
    });

    it("422 template_not_sendable for an approved template: a variable URL button, test-only to another number", async () => {
      const { t } = world();
      const c = await world().connected();
      const button = await c.send({ to: "919876543210", template: "track_order", params: ["77"] });
      expectError(button, 422, "template_not_sendable");
      expect(button.body.message).toContain("URL button");

      await updateWhatsAppSettings(t.db.store.db, t.clock, c.account.id, {
        sandbox: true,
        test_numbers: ["+91 98111 22233"],
      });
      const sandboxed = await c.send(TEMPLATE);
      expectError(sandboxed, 422, "template_not_sendable");
      expect(sandboxed.body.message).toContain("test numbers");
      expect((await c.send({ ...TEMPLATE, to: "919811122233" })).status).toBe(200);
    });

    it("422 invalid_recipient when to is not digits with a country code", async () => {
      const c = await world().connected();
      for (const to of ["9876543210", "abc", "+91-98765", "", "91987654321", "0091987654321x"]) {
        const answer = await c.send({ ...TEMPLATE, to });
        expectError(answer, 422, "invalid_recipient");
        expect(answer.body.error.field).toBe("to");
      }
      expect((await c.send({ ...TEMPLATE, to: 919876543210 })).status).toBe(200);
      expect((await c.send({ ...TEMPLATE, to: "0091 98765 43210" })).status).toBe(200);
    });

    it("502 on an upstream error, a time-out and a reset, with nothing charged and nothing held", async () => {
      const { t, fake } = world();
      const c = await world().connected({ credits: 2 });
      fake.scriptNext({
        status: 500,
        body: metaErrorBody({ message: "(#131000) Something went wrong", type: "OAuthException", code: 131000 }),
      });
      const failed = await c.send(TEMPLATE);
      expectError(failed, 502, "upstream_error");
      expect(failed.body.error.upstream).toMatchObject({ code: 131000, http_status: 500 });
      fake.scriptNext({ hang: true });
      const started = Date.now();
      const timedOut = await c.send(TEMPLATE);
      expectError(timedOut, 502, "upstream_error");
      expect(timedOut.body.message).toContain("800 ms");
      expect(Date.now() - started).toBeLessThan(5000);
      fake.scriptNext({ reset: true });
      expectError(await c.send(TEMPLATE), 502, "upstream_error");
      expect(await whatsappWallet(t, c.account.id)).toEqual({ balance: 2, held: 0 });

      const rows = await t.db.store.db
        .selectFrom("messages")
        .select(["status", "error_code"])
        .where("account_id", "=", c.account.id)
        .execute();
      expect(rows.map((r) => r.status)).toEqual(["failed", "failed", "failed"]);
      const ledger = await t.db.store.db
        .selectFrom("ledger_entries")
        .select("kind")
        .where("account_id", "=", c.account.id)
        .where("wallet", "=", "whatsapp")
        .execute();
      expect(ledger.map((e) => e.kind)).toEqual(["topup"]);
      // The account still sends once WhatsApp is back.
      expect((await c.send(TEMPLATE)).status).toBe(200);
      expect(await whatsappWallet(t, c.account.id)).toEqual({ balance: 1, held: 0 });
    });

    it("502 with a bad access token (190) on the send and on a template sync; the token never appears", async () => {
      const { t } = world();
      const c = await world().connected();
      expect((await c.v2("GET", "/whatsapp/templates")).status).toBe(200);
      await updateWhatsAppSettings(t.db.store.db, t.clock, c.account.id, { access_token: "EAAGexpired" });
      const answer = await c.send({ to: "919876543210", template: "hello", header_params: ["A"] });
      expectError(answer, 502, "upstream_error");
      expect(answer.body.error.upstream).toMatchObject({ code: 190, http_status: 401 });
      expect(answer.text).not.toContain("EAAGexpired");
      // A new business account must be synced before anything can be sent: that sync fails the same way.
      await updateWhatsAppSettings(t.db.store.db, t.clock, c.account.id, { waba_id: "299999999999" });
      expectError(await c.v2("GET", "/whatsapp/templates"), 502, "upstream_error");
      expectError(await c.send(TEMPLATE), 502, "upstream_error");
    });
  });

  describe("bad input: 400", () => {
    it("refuses each malformed request with the field named", async () => {
      const { fake } = world();
      const c = await world().connected();
      await c.customerWrites("919876543210");
      const before = fake.sends().length;
      const cases: Array<[unknown, string]> = [
        [{ to: "919876543210" }, "one of template, message or media_url"],
        [{ to: "919876543210", message: "a", template: "hello" }, "exactly one"],
        [{ to: "919876543210", message: "x".repeat(4097) }, "4096"],
        [{ to: "919876543210", message: "   " }, "empty"],
        [{ to: "919876543210", template: "order_shipped", params: ["a"] }, "expects 2 params ({{1}}..{{2}}), got 1."],
        [{ to: "919876543210", template: "order_shipped", params: ["a", "b", "c"] }, "expects 2 params"],
        [{ to: "919876543210", template: "invoice", params: [] }, "(en) expects 1 param ({{1}}), got 0."],
        [
          { to: "919876543210", template: "hello", header_params: ["A"], params: ["x"] },
          '"hello" (en_US) takes no params, got 1.',
        ],
        [{ to: "919876543210", template: "order_shipped", params: ["a", "line\nbreak"] }, "line break"],
        [{ to: "919876543210", template: "order_shipped", params: ["a", ""] }, "empty"],
        [
          { to: "919876543210", template: "order_shipped", params: ["a\u0000", "b"] },
          "params[0] contains the control character U+0000",
        ],
        [{ to: "919876543210", template: "order_shipped", params: ["a", "b\u001b[0m"] }, "U+001B"],
        [{ to: "919876543210", template: "order_shipped", params: ["a", "b\u007f"] }, "U+007F"],
        [{ to: "919876543210", template: "order_shipped", params: [1, "\u0000"] }, "U+0000"],
        [
          { to: "919876543210", template: "hello", header_params: ["A\u0000"] },
          "header_params[0] contains the control character U+0000",
        ],
        [{ to: "919876543210", message: "hi\u0000there" }, 'Field "message" contains the control character U+0000'],
        [{ to: "919876543210", message: "bell\u0007" }, "U+0007"],
        [{ to: "919876543210", media_url: "https://cdn.example.com/a.jpg", caption: "x\u0000" }, "caption"],
        [{ to: "919876543210", template: "invoice", params: ["1"] }, "header_media_url is required"],
        [
          {
            to: "919876543210",
            template: "invoice",
            params: ["1"],
            header_media_url: "https://cdn.example.com/a.pdf",
            header_media_type: "image",
          },
          "has a document header; header_media_type image does not match it.",
        ],
        [
          {
            to: "919876543210",
            template: "order_shipped",
            params: ["a", "b"],
            header_media_url: "https://x.example.com/a.png",
          },
          "no media header",
        ],
        [{ to: "919876543210", template: "hello" }, "header_params needs exactly one value"],
        [
          { to: "919876543210", template: "order_shipped", params: ["a", "b"], header_params: ["x"] },
          "no header variable",
        ],
        [{ to: "919876543210", media_url: "http://cdn.example.com/a.jpg" }, "https"],
        [{ to: "919876543210", media_url: "https://127.0.0.1/a.jpg" }, "loopback"],
        [{ to: "919876543210", media_url: "https://10.1.2.3/a.jpg" }, "private"],
        [{ to: "919876543210", media_url: "https://localhost/a.jpg" }, "loopback"],
        [{ to: "919876543210", media_url: "not a url" }, "absolute URL"],
        [{ to: "919876543210", media_url: "https://cdn.example.com/a.mp3", caption: "no" }, "caption"],
        [{ to: "919876543210", message: "hi", caption: "x" }, "only with media_url"],
        [{ to: "919876543210", message: "hi", params: ["x"] }, "only with template"],
        [{ to: "919876543210", media_url: "https://cdn.example.com/a.gif", media_type: "gif" }, "media_type"],
        [{ to: "919876543210", template: "hello", header_params: ["A"], extra: 1 }, "extra"],
        [{ to: ["919876543210"], template: "hello" }, 'Field "to" must be a string or an integer'],
        // A union names the branch the value's type chose, not the first branch's type.
        [{ to: 1e16, template: "hello" }, 'Field "to" must be <= 999999999999999'],
        [{ to: -5, template: "hello" }, 'Field "to" must be >= 0'],
        [{ to: "9".repeat(65), template: "hello" }, 'Field "to" must not have more than 64 characters'],
        [
          { to: "919876543210", template: "order_shipped", params: ["a", { b: 1 }] },
          'Field "params[1]" must be a string or a number',
        ],
      ];
      for (const [body, words] of cases) {
        const answer = await c.send(body);
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body.error.code).toBe("invalid_request");
        expect(answer.body.message, JSON.stringify(body)).toContain(words);
      }
      // An entry's own refusal names the entry, as the schema's does (`params[1]`), not the whole list.
      const entries: Array<[unknown, string]> = [
        [{ to: "919876543210", template: "order_shipped", params: ["a", ""] }, "params[1]"],
        [{ to: "919876543210", template: "order_shipped", params: ["a", "line\nbreak"] }, "params[1]"],
        [{ to: "919876543210", template: "order_shipped", params: ["a\u0000", "b"] }, "params[0]"],
        [{ to: "919876543210", template: "order_shipped", params: ["a", "x".repeat(1025)] }, "params[1]"],
        [{ to: "919876543210", template: "hello", header_params: ["A\u0000"] }, "header_params[0]"],
      ];
      for (const [body, field] of entries) {
        const answer = await c.send(body);
        expectError(answer, 400, "invalid_request");
        expect(answer.body.error.field, JSON.stringify(body)).toBe(field);
      }
      // The choice of kind names the first of the three when none is given, the one past the first of several.
      const kinds: Array<[unknown, string]> = [
        [{ to: "919876543210" }, "template"],
        [{ to: "919876543210", message: "a", template: "hello" }, "message"],
        [{ to: "919876543210", message: "a", media_url: "https://cdn.example.com/a.jpg" }, "media_url"],
        [
          { to: "919876543210", template: "hello", message: "a", media_url: "https://cdn.example.com/a.jpg" },
          "message",
        ],
      ];
      for (const [body, field] of kinds) {
        const answer = await c.send(body);
        expectError(answer, 400, "invalid_request");
        expect(answer.body.error.field, JSON.stringify(body)).toBe(field);
      }
      const notJson = await c.v2("POST", "/whatsapp/send", undefined, { "content-type": "application/json" });
      expect(notJson.status).toBe(400);
      expect(fake.sends().length).toBe(before);
    });
  });

  describe("credits under a race", () => {
    it("a wallet of 2 credits and 8 concurrent sends: exactly 2 sent and charged, 6 × 402", async () => {
      const { t, fake } = world();
      const c = await world().connected({ credits: 2 });
      // Slow upstream answers keep both holds in flight while the other six ask (only two reach WhatsApp).
      fake.scriptNext({ delayMs: 200 }, 2);
      const answers = await Promise.all(Array.from({ length: 8 }, () => c.send(TEMPLATE)));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([200, 200, 402, 402, 402, 402, 402, 402]);
      expect(await whatsappWallet(t, c.account.id)).toEqual({ balance: 0, held: 0 });
      expect(fake.sends().filter((r) => (r.path as string).includes(c.phoneNumberId)).length).toBe(2);
    });

    it("an Idempotency-Key retry answers the first result without a second send or charge", async () => {
      const { t, fake } = world();
      const c = await world().connected({ credits: 5 });
      const key = { "idempotency-key": `wa-${Math.random()}` };
      const before = fake.sends().length;
      const first = await c.send(TEMPLATE, key);
      const again = await c.send(TEMPLATE, key);
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual(first.body.data);
      expect(fake.sends().length).toBe(before + 1);
      expect(await whatsappWallet(t, c.account.id)).toEqual({ balance: 4, held: 0 });
      expectError(await c.send({ ...TEMPLATE, params: ["Other", "1"] }, key), 409, "idempotency_conflict");

      // A key whose send failed upstream can be retried.
      const retryKey = { "idempotency-key": `wa-${Math.random()}` };
      fake.scriptNext({ status: 503, body: "unavailable" });
      expectError(await c.send(TEMPLATE, retryKey), 502, "upstream_error");
      expect((await c.send(TEMPLATE, retryKey)).status).toBe(200);
    });
  });
});
