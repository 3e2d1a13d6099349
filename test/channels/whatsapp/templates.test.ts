// Templates synced from the business account (paged), how each is judged sendable, Meta's
// template status updates, and the operator's WhatsApp settings API.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call } from "../../helpers/gateway.js";
import { templateStatusCallback } from "./fake-graph.js";
import { expectError, TEMPLATES, useWhatsAppWorld } from "./helpers.js";

describeEachEngine("WhatsApp templates", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const world = useWhatsAppWorld(engine, { clock, env: { WHATSAPP_TEMPLATE_SYNC_SECONDS: "300" } });

  it("lists only the approved templates of the business account, read across pages, with their flags", async () => {
    const { fake } = world();
    const c = await world().connected();
    const listing = await c.v2("GET", "/whatsapp/templates");
    expect(listing.status).toBe(200);
    expect(listing.body.status).toBe("success");
    // Nine upstream templates over three pages of three; the paused, pending and rejected ones are not listed.
    const pages = fake.requests.filter((r) => r.path === `/v21.0/${c.wabaId}/message_templates`);
    expect(pages).toHaveLength(3);
    const byKey = Object.fromEntries(
      (listing.body.data as Array<Record<string, unknown>>).map((t) => [`${t.name}/${t.language}`, t]),
    );
    expect(Object.keys(byKey).sort()).toEqual([
      "hello/en_US",
      "invoice/en",
      "order_shipped/en",
      "order_shipped/hi",
      "track_order/en",
      "verify_code/en",
    ]);
    expect(byKey["order_shipped/en"]).toEqual({
      name: "order_shipped",
      category: "UTILITY",
      language: "en",
      status: "approved",
      body: "Hi {{1}}, order {{2}} has shipped.",
      param_count: 2,
      header_format: "none",
      header_param_count: 0,
      is_sendable: true,
      is_test_only: false,
      send_disabled_reason: null,
    });
    expect(byKey["hello/en_US"]).toMatchObject({ header_format: "text", header_param_count: 1, param_count: 0 });
    expect(byKey["invoice/en"]).toMatchObject({ header_format: "document", is_sendable: true });
    expect(byKey["verify_code/en"]).toMatchObject({ category: "AUTHENTICATION", is_sendable: true });
    expect(byKey["track_order/en"]).toMatchObject({ is_sendable: false });
    expect(byKey["track_order/en"]?.send_disabled_reason).toContain("URL button");

    // Within WHATSAPP_TEMPLATE_SYNC_SECONDS the stored copy serves; after it, the listing syncs again.
    await c.v2("GET", "/whatsapp/templates");
    expect(fake.requests.filter((r) => r.path === `/v21.0/${c.wabaId}/message_templates`)).toHaveLength(3);
    clock.advance(301_000);
    await c.v2("GET", "/whatsapp/templates");
    expect(fake.requests.filter((r) => r.path === `/v21.0/${c.wabaId}/message_templates`)).toHaveLength(6);
  });

  it("a send naming a template approved since the last sync finds it; one deleted upstream is gone after the next sync", async () => {
    const { fake } = world();
    const c = await world().connected();
    expect((await c.v2("GET", "/whatsapp/templates")).status).toBe(200);
    fake.setTemplates(c.wabaId, [
      ...structuredClone(TEMPLATES).filter((t) => t.name !== "hello"),
      {
        id: "2001",
        name: "new_arrival",
        language: "en",
        status: "APPROVED",
        category: "MARKETING",
        components: [{ type: "BODY", text: "New in: {{1}}" }],
      },
    ]);
    clock.advance(61_000);
    expect((await c.send({ to: "919876543210", template: "new_arrival", params: ["shoes"] })).status).toBe(200);
    expectError(
      await c.send({ to: "919876543210", template: "hello", header_params: ["A"] }),
      404,
      "template_not_found",
    );
  });

  it("follows Meta's template status updates: paused, reinstated, and an unseen approval triggers a sync", async () => {
    const c = await world().connected();
    await c.v2("GET", "/whatsapp/templates");
    const update = (event: string, name = "order_shipped", language = "en") =>
      world().callback(templateStatusCallback({ wabaId: c.wabaId, templateId: "1001", name, language, event }));
    expect((await update("PAUSED")).status).toBe(200);
    const paused = await c.send({ to: "919876543210", template: "order_shipped", params: ["a", "b"] });
    expectError(paused, 404, "template_not_found");
    expect(paused.body.message).toContain("is paused");
    const listed = (await c.v2("GET", "/whatsapp/templates")).body.data as Array<Record<string, unknown>>;
    expect(listed.filter((x) => x.name === "order_shipped").map((x) => x.language)).toEqual(["hi"]);
    // The other translation is untouched.
    expect(
      (await c.send({ to: "919876543210", template: "order_shipped", language: "hi", params: ["a", "b"] })).status,
    ).toBe(200);
    expect((await update("REINSTATED")).status).toBe(200);
    expect((await c.send({ to: "919876543210", template: "order_shipped", params: ["a", "b"] })).status).toBe(200);
    expect((await update("FLAGGED")).status).toBe(200);
    expect((await c.send({ to: "919876543210", template: "order_shipped", params: ["a", "b"] })).status).toBe(200);
    expect((await update("DISABLED")).status).toBe(200);
    const disabled = await c.send({ to: "919876543210", template: "order_shipped", params: ["a", "b"] });
    expectError(disabled, 404, "template_not_found");
    expect(disabled.body.message).toContain("is disabled");

    const { fake } = world();
    const before = fake.requests.filter((r) => r.path.endsWith("/message_templates")).length;
    expect((await update("APPROVED", "brand_new", "en")).status).toBe(200);
    await c.v2("GET", "/whatsapp/templates");
    expect(fake.requests.filter((r) => r.path.endsWith("/message_templates")).length).toBe(before + 3);
  });

  it("operators connect an account, mark templates test-only and set test numbers; the token is never shown", async () => {
    const { t } = world();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const customer = await world().connected();
    const other = await world().connected();
    const admin = (method: string, path: string, json?: unknown) =>
      call(t, method, `/admin/api/accounts/${customer.account.username}/whatsapp${path}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        ...(json !== undefined ? { json } : {}),
      });
    const settings = await admin("GET", "");
    expect(settings.status).toBe(200);
    expect(settings.body.data).toMatchObject({
      enabled: true,
      connector: "whatsapp-cloud",
      connector_is_default: true,
      business_account_connected: true,
      phone_number_id: customer.phoneNumberId,
      waba_id: customer.wabaId,
      access_token_set: true,
      sandbox: false,
      test_numbers: [],
    });
    expect(settings.text).not.toContain(customer.token);

    const changed = await admin("PUT", "", { test_numbers: ["+91 98111 00001", "919811100001", "14155552671"] });
    expect(changed.body.data.test_numbers).toEqual(["919811100001", "14155552671"]);
    expectError(await admin("PUT", "", { test_numbers: ["12345"] }), 400, "invalid_request");
    expectError(await admin("PUT", "", { phone_number_id: other.phoneNumberId }), 409, "conflict");
    expectError(await admin("PUT", "", { connector: "smtp" }), 400, "invalid_request");

    // The operator's listing also shows the templates WhatsApp paused or disabled, with the reason.
    const synced = await admin("POST", "/templates/sync");
    expect(synced.status).toBe(200);
    const flash = (synced.body.data as Array<Record<string, unknown>>).find((x) => x.name === "flash_sale");
    expect(flash).toMatchObject({ status: "paused", is_sendable: false });
    expect(flash?.send_disabled_reason).toContain("Paused");
    // And the ones still in review or refused, with WhatsApp's reason: support sees why one is missing.
    const byName = (name: string) => (synced.body.data as Array<Record<string, unknown>>).find((x) => x.name === name);
    expect(byName("draft_notice")).toMatchObject({ status: "pending", is_sendable: false });
    expect(byName("draft_notice")?.send_disabled_reason).toContain("Waiting for WhatsApp's review");
    expect(byName("old_promo")).toMatchObject({ status: "rejected", is_sendable: false });
    expect(byName("old_promo")?.send_disabled_reason).toBe(
      "Rejected by WhatsApp (TAG_CONTENT_MISMATCH); edit it in the business account and submit it again.",
    );
    const marked = await admin("PUT", "/templates/order_shipped", { test_only: true });
    expect(marked.body.data).toEqual({ name: "order_shipped", test_only: true, languages: 2 });
    expectError(await admin("PUT", "/templates/nope", { test_only: true }), 404, "not_found");
    const listing = (await customer.v2("GET", "/whatsapp/templates")).body.data as Array<Record<string, unknown>>;
    expect(listing.find((x) => x.name === "order_shipped")).toMatchObject({ is_test_only: true, is_sendable: true });
    expect(listing.find((x) => x.name === "invoice")).toMatchObject({ is_test_only: false });
    const toStranger = await customer.send({ to: "919876543210", template: "order_shipped", params: ["a", "b"] });
    expectError(toStranger, 422, "template_not_sendable");
    expect((await customer.send({ to: "919811100001", template: "order_shipped", params: ["a", "b"] })).status).toBe(
      200,
    );

    // The account reads its own settings (no token) through v2; a customer key cannot use the operator API.
    const own = await customer.v2("GET", "/whatsapp/account");
    expect(own.body.data.test_numbers).toEqual(["919811100001", "14155552671"]);
    expect(own.text).not.toContain(customer.token);
    const denied = await call(t, "GET", `/admin/api/accounts/${customer.account.username}/whatsapp`, {
      headers: { authorization: `Bearer ${customer.account.apiKey}` },
    });
    expect(denied.status).toBe(403);
    // Customer messages can be injected only on the simulator.
    expectError(await admin("POST", "/inbound", { from: "919811100002", text: "hi" }), 409, "conflict");
  });
});
