// The v2 SMS calls' refusals of one field of the body name it in error.field, as the
// schema's refusals and WhatsApp's do: sender_id, message, route and the schedule
// (`schedule_at` on the send and bulk, `scheduled_at` on /sms/schedule), and the DLT entity and
// template ids the send gives. The legacy families answer the same refusals with their numbers.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";
import { legacy, operatorCall, sendParams } from "../../helpers/legacy.js";
import { FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";

const SEND = { sender_id: "SWBRD", recipient: "9876543210", message: "Hello" };
const ENTITY = "1101160000000000071";
const TEMPLATE_ID = "1107000000000000071";
/** 11 segments of GSM-7: one past the 10 a send may have. */
const TOO_LONG = "a".repeat(153 * 10 + 1);

describeEachEngine("v2 SMS: a refused field is named", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("names sender_id, message, route and the schedule on send, schedule and bulk", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 5 } });
    const headers = keyOf(account);
    const { recipient: _r, ...bulkText } = SEND;
    const bulkBase = { ...bulkText, recipients: ["9876543210"] };
    const cases: [string, Record<string, unknown>, string, string][] = [
      ["/api/v2/sms/send", { ...SEND, sender_id: " " }, "missing_sender_id", "sender_id"],
      ["/api/v2/sms/send", { ...SEND, sender_id: "NOSUCH" }, "invalid_sender_id", "sender_id"],
      ["/api/v2/sms/send", { ...SEND, message: " " }, "missing_message", "message"],
      ["/api/v2/sms/send", { ...SEND, route: "bulk" }, "invalid_route", "route"],
      ["/api/v2/sms/send", { ...SEND, schedule_at: "tomorrow" }, "invalid_schedule", "schedule_at"],
      ["/api/v2/sms/schedule", { ...SEND, scheduled_at: "2030-01-01T10:00:00Z" }, "invalid_schedule", "scheduled_at"],
      ["/api/v2/sms/schedule", { ...SEND, scheduled_at: "2020-01-01 10:00:00" }, "invalid_schedule", "scheduled_at"],
      ["/api/v2/sms/bulk", { ...bulkBase, schedule_at: "tomorrow" }, "invalid_schedule", "schedule_at"],
      ["/api/v2/sms/bulk", { ...bulkBase, message: "" }, "missing_message", "message"],
      ["/api/v2/sms/bulk/preview", { ...bulkBase, route: "bulk" }, "invalid_route", "route"],
    ];
    for (const [path, json, code, field] of cases) {
      const answer = await call(t, "POST", path, { headers, json });
      const what = `${path} ${JSON.stringify(json)}`;
      expect(answer.body.success, what).toBe(false);
      expect(answer.body.error, what).toMatchObject({ code, field });
    }
  });

  it("names message for its encoding and length, on send, schedule and bulk", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 5 } });
    const headers = keyOf(account);
    const { recipient: _r, ...bulkText } = SEND;
    const cases: [string, Record<string, unknown>, string][] = [
      ["/api/v2/sms/send", { ...SEND, message: "Namaste नमस्ते" }, "unicode_not_allowed"],
      ["/api/v2/sms/send", { ...SEND, message: TOO_LONG }, "message_too_long"],
      [
        "/api/v2/sms/schedule",
        { ...SEND, message: "Namaste नमस्ते", scheduled_at: "2030-01-01 10:00:00" },
        "unicode_not_allowed",
      ],
      ["/api/v2/sms/bulk", { ...bulkText, recipients: ["9876543210"], message: TOO_LONG }, "message_too_long"],
    ];
    for (const [path, json, code] of cases) {
      const answer = await call(t, "POST", path, { headers, json });
      expect(answer.body.error, `${path} ${code}`).toMatchObject({ code, field: "message" });
    }
    const legacyAnswer = await legacy(t, "/httpapi/send", sendParams(account, { message: TOO_LONG }));
    expect(legacyAnswer.text).toBe("-8");
  });

  it("names the DLT header, entity and template ids the send gives, and no field for a text no template matches", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t, { dltScrubbing: true, credits: { sms: 5 } });
    const op = (method: string, path: string, json?: unknown) =>
      operatorCall(t, operator, method, `/accounts/${account.username}${path}`, json);
    await op("POST", "/dlt/headers", { header: "SWBRD" });
    await op("POST", "/sender-ids", { sender: "NOTDLT", approve: true, dlt_header: false });
    await op("POST", "/dlt/entities", { entity_id: ENTITY });
    await op("POST", "/templates", {
      name: "code",
      content: "Your code is {#var#}",
      dlt_template_id: TEMPLATE_ID,
      entity_id: ENTITY,
      approve: true,
    });
    // Registered for no entity: it fits a send of any entity, which the entity check then refuses.
    await op("POST", "/templates", { name: "hello", content: "Hello {#var#}", approve: true });
    const headers = keyOf(account);
    const cases: [Record<string, unknown>, string, string | undefined][] = [
      [{ ...SEND, sender_id: "NOTDLT", message: "Your code is 1" }, "dlt_header_not_whitelisted", "sender_id"],
      [
        { ...SEND, message: "Hello 1", dlt_entity_id: "1101160000000000999" },
        "dlt_entity_not_whitelisted",
        "dlt_entity_id",
      ],
      [
        { ...SEND, message: "Your code is 1", dlt_template_id: "1107000000000000999" },
        "dlt_template_mismatch",
        "dlt_template_id",
      ],
      // The text, not the id: it matches no template (the one named included), so no one field.
      [{ ...SEND, message: "Goodbye", dlt_template_id: TEMPLATE_ID }, "dlt_template_mismatch", undefined],
      [{ ...SEND, message: "Goodbye" }, "dlt_template_mismatch", undefined],
    ];
    for (const [json, code, field] of cases) {
      const answer = await call(t, "POST", "/api/v2/sms/send", { headers, json });
      const what = JSON.stringify(json);
      expect(answer.body.error, what).toMatchObject({ code });
      expect(answer.body.error.field, what).toBe(field);
    }
    const bulk = await call(t, "POST", "/api/v2/sms/bulk", {
      headers,
      json: {
        sender_id: "SWBRD",
        recipients: ["9876543210"],
        message: "Hello 1",
        dlt_entity_id: "1101160000000000999",
      },
    });
    expect(bulk.body.error).toMatchObject({ code: "dlt_entity_not_whitelisted", field: "dlt_entity_id" });

    const legacyAnswers = await Promise.all([
      legacy(t, "/httpapi/send", sendParams(account, { sender_id: "NOTDLT", message: "Your code is 1" })),
      legacy(t, "/httpapi/send", sendParams(account, { message: "Hello 1", dlt_entity_id: "1101160000000000999" })),
      legacy(
        t,
        "/httpapi/send",
        sendParams(account, { message: "Your code is 1", dlt_template_id: "1107000000000000999" }),
      ),
    ]);
    expect(legacyAnswers.map((answer) => answer.text)).toEqual(["-32", "-31", "-8"]);
  });
});
