// What an account asks the operator for, and the operator's answer, through the real server:
// a sender-ID request and a template (v2 and the legacy addtemplate) are written to the audit log
// with who asked (audit-ops finding 14), as a keyword request is; a rejection of a template or a
// sender ID refuses unknown body fields and keeps an optional reason the account reads on its
// request (finding 15), cleared when it is approved after all.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy } from "../../helpers/legacy.js";
import { keyOf } from "../../helpers/sms.js";

describeEachEngine("requests to the operator and its decisions", (engine) => {
  const gateway = useTestGateway(engine);
  let operator: TestAccount;
  let shop: TestAccount;

  const op = (method: string, path: string, json?: unknown) =>
    call(gateway(), method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json === undefined ? {} : { json }),
    });
  const audit = async (action: string) => {
    const answer = await op("GET", `/audit?account=${shop.username}&action=${action}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data as Record<string, unknown>[];
  };

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
    shop = await buildAccount(gateway());
  });

  it("audits a sender-ID request and a template request with who asked, from where (audit row 14)", async () => {
    const t = gateway();
    const asked = await call(t, "POST", "/api/v2/sender-id-requests", {
      headers: keyOf(shop),
      json: { sender_id: "alerts", note: "for outage notices" },
    });
    expect(asked.status, asked.text).toBe(201);
    // Asked again: its state, and nothing changed, so no second entry.
    const again = await call(t, "POST", "/api/v2/sender-id-requests", {
      headers: keyOf(shop),
      json: { sender_id: "ALERTS" },
    });
    expect(again.status, again.text).toBe(200);
    const template = await call(t, "POST", "/api/v2/templates", {
      headers: keyOf(shop),
      json: { name: "ship", content: "Order {#var#} shipped." },
    });
    expect(template.status, template.text).toBe(201);
    const added = await legacy(t, "/httpapi/addtemplate", {
      ...credentials(shop),
      sender_id: "SWBRD",
      template_name: "legacy ship",
      template_message: "Parcel {#var#} is out for delivery.",
      dlt_template_id: "1107160000000000099",
    });
    expect(added.text, added.text).toMatch(new RegExp(`^${shop.id}_\\d+$`));

    const senders = await audit("sender_id.request");
    expect(senders).toHaveLength(1);
    expect(senders[0]).toMatchObject({
      actor: shop.username,
      channel: "api",
      credential: expect.stringMatching(/^key:\d+$/),
      address: "127.0.0.1",
      action: "sender_id.request",
      target: `sender ID ${asked.body.data.id}`,
      after: { sender_id: "ALERTS", status: "pending", note: "for outage notices" },
    });
    const templates = await audit("template.request");
    expect(templates.map((entry) => [entry.target, entry.channel, entry.actor])).toEqual([
      [`template ${added.text.split("_")[1]}`, "api", shop.username],
      [`template ${template.body.data.id}`, "api", shop.username],
    ]);
    expect(templates[1]).toMatchObject({
      credential: expect.stringMatching(/^key:\d+$/),
      after: { name: "ship", content: "Order {#var#} shipped.", status: "pending" },
    });
    expect(templates[0]).toMatchObject({ after: { name: "legacy ship", sender_id: "SWBRD", status: "pending" } });
  });

  it("keeps a rejection's reason for the account to read, and refuses unknown body fields (audit row 15)", async () => {
    const t = gateway();
    const template = await call(t, "POST", "/api/v2/templates", {
      headers: keyOf(shop),
      json: { name: "promo", content: "Sale {#var#} today." },
    });
    const templateId = template.body.data.id as number;
    const sender = await call(t, "POST", "/api/v2/sender-id-requests", {
      headers: keyOf(shop),
      json: { sender_id: "SALEZ" },
    });
    const senderId = sender.body.data.id as number;

    for (const path of [`/templates/${templateId}/reject`, `/sender-ids/${senderId}/reject`]) {
      const refused = await op("POST", path, { foo: 1, reason: "wrong header" });
      expect(refused.status, path).toBe(400);
      expect(refused.body.error, path).toMatchObject({ code: "invalid_request" });
      expect(refused.text, path).toContain("foo");
      expect((await op("POST", path.replace("reject", "approve"), { reason: "x" })).status, path).toBe(400);
    }
    const rejected = await op("POST", `/templates/${templateId}/reject`, {
      reason: "  The header is not registered.  ",
    });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body.data).toMatchObject({ status: "rejected", rejection_reason: "The header is not registered." });
    const senderRejected = await op("POST", `/sender-ids/${senderId}/reject`, { reason: "Not your brand." });
    expect(senderRejected.body.data).toMatchObject({ status: "rejected", rejection_reason: "Not your brand." });

    // The account reads it on its template and its sender-ID request; its own notes stay its own.
    const own = await call(t, "GET", `/api/v2/templates/${templateId}`, { headers: keyOf(shop) });
    expect(own.body.data).toMatchObject({
      status: "rejected",
      notes: null,
      rejection_reason: "The header is not registered.",
    });
    const requests = await call(t, "GET", "/api/v2/sender-id-requests", { headers: keyOf(shop) });
    expect(requests.body.data.find((r: { id: number }) => r.id === senderId)).toMatchObject({
      status: "rejected",
      rejection_reason: "Not your brand.",
    });
    const entry = (await audit("template.reject"))[0];
    expect(entry).toMatchObject({ after: { status: "rejected", rejection_reason: "The header is not registered." } });

    // Without a body, as the console decides: no reason; approved after all, the reason is gone.
    const bare = await call(t, "POST", `/admin/api/sender-ids/${senderId}/reject`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(bare.status, bare.text).toBe(200);
    expect(bare.body.data.rejection_reason).toBeNull();
    const approved = await op("POST", `/templates/${templateId}/approve`);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.data).toMatchObject({ status: "approved", rejection_reason: null });
  });

  it("answers the same template asked for again as it stands, as a sender ID asked again (decision 0144)", async () => {
    const t = gateway();
    const ask = (json: Record<string, unknown>) => call(t, "POST", "/api/v2/templates", { headers: keyOf(shop), json });
    const first = await ask({ name: "welcome", content: "Welcome {#var#}!", dlt_template_id: "1107160000000000111" });
    expect(first.status, first.text).toBe(201);
    // Same content, header and DLT ids under another name: the one it has, unchanged.
    const again = await ask({ name: "welcome 2", content: "Welcome {#var#}!", dlt_template_id: "1107160000000000111" });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toMatchObject({ id: first.body.data.id, name: "welcome", status: "pending" });
    // Another DLT template ID, or other content: another template.
    const otherId = await ask({ name: "welcome", content: "Welcome {#var#}!", dlt_template_id: "1107160000000000112" });
    expect(otherId.status, otherId.text).toBe(201);
    expect((await ask({ name: "welcome", content: "Welcome {#var#}." })).status).toBe(201);
    // A rejected one stays rejected, with its reason.
    expect((await op("POST", `/templates/${first.body.data.id}/reject`, { reason: "Too vague." })).status).toBe(200);
    const rejected = await ask({
      name: "welcome",
      content: "Welcome {#var#}!",
      dlt_template_id: "1107160000000000111",
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toMatchObject({ status: "rejected", rejection_reason: "Too vague." });
    // Drafts are the same only under the same name.
    expect((await ask({ name: "later" })).status).toBe(201);
    expect((await ask({ name: "later" })).status).toBe(200);
    expect((await ask({ name: "later too" })).status).toBe(201);
    // The legacy addtemplate: the same header and text answer the same id.
    const legacyAsk = () =>
      legacy(t, "/httpapi/addtemplate", {
        ...credentials(shop),
        sender_id: "SWBRD",
        template_name: "legacy otp",
        template_message: "OTP {#var#}",
        dlt_template_id: "1107160000000000113",
      });
    const legacyFirst = (await legacyAsk()).text;
    expect(legacyFirst).toMatch(new RegExp(`^${shop.id}_\\d+$`));
    expect((await legacyAsk()).text).toBe(legacyFirst);

    const listed = await call(t, "GET", "/api/v2/templates?per_page=100", { headers: keyOf(shop) });
    const welcome = listed.body.data.filter((row: { content: string }) => row.content.startsWith("Welcome"));
    expect(welcome).toHaveLength(3);
    // Only what was made is in the audit log.
    const requested = (await audit("template.request")).map((entry) => entry.target);
    expect(requested).toContain(`template ${first.body.data.id}`);
    expect(new Set(requested).size).toBe(requested.length);
    expect(requested.filter((target) => target === `template ${legacyFirst.split("_")[1]}`)).toHaveLength(1);
  });
});
