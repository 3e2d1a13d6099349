// The v2 SMS calls' refusals of one field of the body name it in error.field, as the
// schema's refusals and WhatsApp's do: sender_id, message, route and the schedule
// (`schedule_at` on the send and bulk, `scheduled_at` on /sms/schedule).
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";

const SEND = { sender_id: "SWBRD", recipient: "9876543210", message: "Hello" };

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
});
