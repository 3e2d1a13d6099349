// A number given twice in one legacy or XML send (audit L1), on both engines through the real
// server: it is sent and charged once, however it is written (9876543210, 09876543210,
// +919876543210, 919876543210), each repeat is a row of the log of refusals
// (duplicate_recipient, with the broadcast id), and the answer stays the broadcast id. An XML
// message is a repeat when its number and its text are an earlier message's; the same number
// with another text is another message.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { credentials, expectBroadcastId, legacy, pushsms, sendParams, xmlSend } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR, keyOf, statusOf } from "../../helpers/sms.js";

const WRITTEN_FOUR_WAYS = "9876543210,09876543210,+919876543210,919876543210";
/** 200 GSM-7 characters: two parts, so two credits a number. */
const TWO_PARTS = `Your order is on its way. ${"x".repeat(174)}`;

describeEachEngine("a number repeated in one legacy or XML send", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  async function leftOutOf(t: TestGateway, account: TestAccount, broadcastId: string) {
    await t.gateway.ctx.refusals.flush();
    const answer = await call(t, "GET", `/api/v2/refusals?broadcast_id=${broadcastId}`, { headers: keyOf(account) });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data as { code: string; recipients: string[]; broadcast_id: string; answer: string }[];
  }

  async function recipientsOf(t: TestGateway, account: TestAccount, broadcastId: string) {
    const status = await statusOf(t, account, broadcastId);
    expect(status.status, status.text).toBe(200);
    return (status.body.data.messages as { mobile: string }[]).map((m) => m.mobile).sort();
  }

  it.each([
    ["GET", "/httpapi/send"],
    ["POST", "/api/secure_api/httpapi/send"],
  ] as const)("legacy %s %s: sent and charged once a number, each repeat in the log of refusals", async (method, path) => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const send = await legacy(
      t,
      path,
      sendParams(account, { phonenumber: `${WRITTEN_FOUR_WAYS},9876543211`, message: TWO_PARTS }),
      method,
    );
    const broadcastId = expectBroadcastId(send, account, "send");
    expect(send.headers.get("content-type")).toMatch(/^text\/plain/);

    expect(await recipientsOf(t, account, broadcastId)).toEqual(["9876543210", "9876543211"]);
    expect(await balanceOf(t, account)).toBe(100 - 2 * 2);
    const repeats = await leftOutOf(t, account, broadcastId);
    expect(repeats).toHaveLength(3);
    for (const row of repeats) {
      expect(row).toMatchObject({
        code: "duplicate_recipient",
        recipients: ["9876543210"],
        broadcast_id: broadcastId,
        answer: broadcastId,
      });
    }
  });

  it("legacy: a wallet that covers each number once is enough", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 1 } });
    const send = await legacy(t, "/httpapi/send", sendParams(account, { phonenumber: "9876543210,9876543210" }));
    const broadcastId = expectBroadcastId(send, account, "send");
    expect(await recipientsOf(t, account, broadcastId)).toEqual(["9876543210"]);
    expect(await balanceOf(t, account)).toBe(0);
  });

  it("legacy: repeats of a number that is not one are still -5; a repeated number with a bad one is sent once", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const refused = await legacy(t, "/httpapi/send", sendParams(account, { phonenumber: "123,123" }));
    expect(refused.text).toBe("-5");
    const send = await legacy(t, "/httpapi/send", sendParams(account, { phonenumber: "123,9876543210,09876543210" }));
    const broadcastId = expectBroadcastId(send, account, "send");
    expect(await recipientsOf(t, account, broadcastId)).toEqual(["9876543210"]);
    expect(await balanceOf(t, account)).toBe(9);
    const rows = await leftOutOf(t, account, broadcastId);
    expect(rows.map((row) => row.code).sort()).toEqual(["duplicate_recipient", "invalid_recipient"]);
  });

  it("XML: the same number and text again is sent once; the same number with another text is sent", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const send = await xmlSend(
      t,
      pushsms(credentials(account), {
        messages: [
          { pno: "9876543210", msg: TWO_PARTS },
          { pno: "+91 98765 43210", msg: TWO_PARTS },
          { pno: "919876543210", msg: TWO_PARTS },
          { pno: "09876543210", msg: "Your OTP is 482913. Do not share it." },
          { pno: "9876543211", msg: TWO_PARTS },
        ],
      }),
    );
    const broadcastId = expectBroadcastId(send, account, "xml send");
    expect(await recipientsOf(t, account, broadcastId)).toEqual(["9876543210", "9876543210", "9876543211"]);
    // Two parts each for the long text (once per number), one for the OTP.
    expect(await balanceOf(t, account)).toBe(100 - 2 - 1 - 2);
    const repeats = await leftOutOf(t, account, broadcastId);
    expect(repeats.map((row) => [row.code, row.recipients])).toEqual([
      ["duplicate_recipient", ["9876543210"]],
      ["duplicate_recipient", ["9876543210"]],
    ]);
  });
});
