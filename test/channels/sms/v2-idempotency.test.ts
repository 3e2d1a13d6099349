import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { balanceOf, FAST_SIMULATOR, sendSms } from "../../helpers/sms.js";

const BODY = { sender_id: "SWBRD", recipient: "9876543210", message: "pay 100 to 42" };

async function storedMessages(t: TestGateway, account: TestAccount): Promise<string[]> {
  const rows = await t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", account.id).execute();
  return rows.map((row) => row.id);
}

describeEachEngine("v2 SMS send with Idempotency-Key", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("answers a retry with the first answer, without a second message or charge", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const key = { "idempotency-key": "order-1001" };
    const first = await sendSms(t, account, BODY, key);
    expect(first.status).toBe(200);
    const second = await sendSms(t, account, BODY, key);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.body.data.message_id).toBe(first.body.data.message_id);
    // Members of a JSON object have no order: the same fields in another order are the same request.
    const reordered = await sendSms(
      t,
      account,
      { message: BODY.message, recipient: BODY.recipient, sender_id: "SWBRD" },
      key,
    );
    expect(reordered.status).toBe(200);
    expect(reordered.body).toEqual(first.body);
    expect(await balanceOf(t, account)).toBe(9);
    expect(await storedMessages(t, account)).toEqual([first.body.data.message_id]);

    const unkeyed = await sendSms(t, account, BODY);
    expect(unkeyed.body.data.message_id).not.toBe(first.body.data.message_id);
    expect(await balanceOf(t, account)).toBe(8);
  });

  it("answers 409 when the key is reused with another body, and charges nothing for it", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const key = { "idempotency-key": "order-2002" };
    const first = await sendSms(t, account, BODY, key);
    expect(first.status).toBe(200);
    const other = await sendSms(t, account, { ...BODY, message: "pay 999 to 42" }, key);
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ success: false, error: { code: "idempotency_conflict" } });
    expect(other.body.error.legacy_code).toBeUndefined();
    expect(await balanceOf(t, account)).toBe(9);
    expect(await storedMessages(t, account)).toHaveLength(1);
  });

  it("keeps keys apart per account", async () => {
    const t = gateway();
    const a = await buildAccount(t);
    const b = await buildAccount(t);
    const key = { "idempotency-key": "shared-key" };
    const fromA = await sendSms(t, a, BODY, key);
    const fromB = await sendSms(t, b, { ...BODY, message: "something else" }, key);
    expect(fromA.status).toBe(200);
    expect(fromB.status).toBe(200);
    expect(fromB.body.data.message_id).not.toBe(fromA.body.data.message_id);
  });

  it("accepts exactly one of 20 concurrent requests with the same key", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const key = { "idempotency-key": `burst-${engine}` };
    const answers = await Promise.all(Array.from({ length: 20 }, () => sendSms(t, account, BODY, key)));
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual(answers[0]!.body);
    }
    expect(await storedMessages(t, account)).toEqual([answers[0]!.body.data.message_id]);
    expect(await balanceOf(t, account)).toBe(9);
  });

  it("refuses a key longer than 255 characters or with invisible characters", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    for (const bad of ["k".repeat(256), "two words"]) {
      const response = await sendSms(t, account, BODY, { "idempotency-key": bad });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ success: false, error: { code: "invalid_request" } });
      expect(response.body.message).toContain("Idempotency-Key");
    }
    expect(await balanceOf(t, account)).toBe(10);
    const longest = await sendSms(t, account, BODY, { "idempotency-key": "k".repeat(255) });
    expect(longest.status).toBe(200);
  });

  it("lets a key be used again after the send it carried was refused", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 1 } });
    const key = { "idempotency-key": "after-refusal" };
    const refused = await sendSms(t, account, { ...BODY, message: "a".repeat(161) }, key);
    expect(refused.status).toBe(402);
    const accepted = await sendSms(t, account, BODY, key);
    expect(accepted.status).toBe(200);
    expect(await balanceOf(t, account)).toBe(0);
  });
});
