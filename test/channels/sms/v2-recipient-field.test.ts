// A v2 SMS refusal of a number names the field that held it, as WhatsApp's invalid_recipient
// names `to`: `recipient` on the send, its GET variant and the schedule; `recipients[i]` on a
// bulk call and its preview (i the first number refused); `group_id` when a contact group's
// numbers are refused.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";

const TEXT = { sender_id: "SWBRD", message: "Hello" };

describeEachEngine("v2 SMS: a refused number names its field", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("names recipient on the send, its GET variant and the schedule", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 5 } });
    await t.db.store.db.updateTable("accounts").set({ get_api_enabled: 1 }).where("id", "=", account.id).execute();
    const headers = keyOf(account);
    const send = await call(t, "POST", "/api/v2/sms/send", { headers, json: { ...TEXT, recipient: "12345" } });
    const query = new URLSearchParams({ ...TEXT, recipient: "98765abcde" });
    const byQuery = await call(t, "GET", `/api/v2/sms/send?${query}`, { headers });
    const schedule = await call(t, "POST", "/api/v2/sms/schedule", {
      headers,
      json: { ...TEXT, recipient: "0876543210", scheduled_at: "2099-01-01 10:00:00" },
    });
    for (const [answer, number] of [
      [send, "12345"],
      [byQuery, "98765abcde"],
      [schedule, "0876543210"],
    ] as const) {
      expect(answer.status).toBe(422);
      expect(answer.body.message).toContain(number);
      expect(answer.body.error).toMatchObject({ code: "invalid_recipient", legacy_code: -5, field: "recipient" });
    }
    // A missing one already named it; it still does.
    const missing = await call(t, "POST", "/api/v2/sms/send", { headers, json: { ...TEXT, recipient: "" } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "invalid_recipient", field: "recipient" });
  });

  it("names recipients[i] on a bulk call and its preview, and group_id for a group's numbers", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 5 } });
    const headers = keyOf(account);
    for (const path of ["/api/v2/sms/bulk", "/api/v2/sms/bulk/preview"]) {
      const bad = await call(t, "POST", path, { headers, json: { ...TEXT, recipients: ["123", "abc"] } });
      expect(bad.status, path).toBe(422);
      expect(bad.body.error, path).toMatchObject({ code: "invalid_recipient", field: "recipients[0]" });
      // A blank one first: the first refused is still named by its place, not as the send's `recipient`.
      const blankFirst = await call(t, "POST", path, { headers, json: { ...TEXT, recipients: ["", "12"] } });
      expect(blankFirst.status, path).toBe(400);
      expect(blankFirst.body.error, path).toMatchObject({ code: "invalid_recipient", field: "recipients[0]" });
    }
    const now = t.clock.now().getTime();
    const group = await t.db.store.db
      .insertInto("contact_groups")
      .values({ account_id: account.id, name: "bad", description: null, created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    await t.db.store.db
      .insertInto("contacts")
      .values([{ group_id: group.id, number: "12345", name: null, created_at: now }])
      .execute();
    const grouped = await call(t, "POST", "/api/v2/sms/bulk", { headers, json: { ...TEXT, group_id: group.id } });
    expect(grouped.status).toBe(422);
    expect(grouped.body.error).toMatchObject({ code: "invalid_recipient", field: "group_id" });
    const empty = await t.db.store.db
      .insertInto("contact_groups")
      .values({ account_id: account.id, name: "empty", description: null, created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    const none = await call(t, "POST", "/api/v2/sms/bulk", { headers, json: { ...TEXT, group_id: empty.id } });
    expect(none.status).toBe(422);
    expect(none.body.error).toMatchObject({ code: "invalid_recipient", field: "group_id" });
  });
});
