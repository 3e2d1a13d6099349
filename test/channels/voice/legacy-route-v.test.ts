// The legacy send's route V (the spec: "V voice"): a text-to-speech call of the message to the
// number, from the sender ID as an approved caller number, charged to the voice wallet and
// reported by the legacy delivery report, as a call of the voice API is; and its refusals in the
// legacy family's codes, charging nothing.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, type TextResponse } from "../../helpers/legacy.js";
import { buildVoiceAccount, CALLER, FAST_VOICE_SIMULATOR, voiceBalance, waitForCall } from "./helpers.js";

const TEXT = "Your code is 4 8 2 9 1 3.";

/** The legacy answer of an accepted call: this account's broadcast id, as plain text. */
function broadcastIdOf(answer: TextResponse, account: TestAccount, what: string): string {
  expect(answer.status, what).toBe(200);
  expect(answer.text, `${what}: ${answer.headers.get("x-error-message")}`).toMatch(
    new RegExp(`^${account.id}_\\d{8}_\\d+$`),
  );
  return answer.text;
}

describeEachEngine("legacy send, route V: a voice call", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_VOICE_SIMULATOR });

  it("places the call from the sender ID, charges the voice wallet, and /dlr reports it", async () => {
    const t = gateway();
    const account = await buildVoiceAccount(t, { voice: 10 });
    const sent = await legacy(t, "/httpapi/send", {
      ...credentials(account),
      route: "V",
      sender_id: CALLER,
      phonenumber: "9876543210",
      message: TEXT,
    });
    const id = broadcastIdOf(sent, account, "route V");
    expect(await voiceBalance(t, account)).toBeLessThan(10);
    const report = await waitForCall(t, account, id, (r) => r.status === "delivered");
    expect(report.mobile).toBe("9876543210");
    const day = id.split("_")[1]!;
    const dlr = await legacy(t, "/httpapi/dlr", {
      ...credentials(account),
      phonenumber: "9876543210",
      broadcastid: id,
      date: day,
    });
    expect(dlr.text).toBe("delivered");
    // The lower-case letter and the secure prefix are the same route.
    const secure = await legacy(t, "/api/secure_api/httpapi/send", {
      api_key: account.apiKey,
      route: "v",
      sender_id: CALLER,
      phonenumber: "9876543211",
      text: TEXT,
    });
    broadcastIdOf(secure, account, "route v, api_key, text");
  });

  it("refuses in the legacy codes and charges nothing", async () => {
    const t = gateway();
    const account = await buildVoiceAccount(t, { voice: 10 });
    const broke = await buildVoiceAccount(t, { voice: 0 });
    const base = { route: "V", sender_id: CALLER, phonenumber: "9876543210", message: TEXT };
    const cases: [string, Record<string, string>, string][] = [
      ["a sender that is no approved caller number", { ...base, sender_id: "SWBRD" }, "-10"],
      ["no sender", { ...base, sender_id: "" }, "-4"],
      ["no number", { ...base, phonenumber: "" }, "-5"],
      ["two numbers", { ...base, phonenumber: "9876543210,9876543211" }, "-5"],
      ["no text", { ...base, message: "" }, "-6"],
      ["a schedule", { ...base, schedule: "2030-01-01 10:00:00" }, "-8"],
    ];
    for (const [what, params, code] of cases) {
      const answer = await legacy(t, "/httpapi/send", { ...credentials(account), ...params });
      expect(answer.text, `${what}: ${answer.headers.get("x-error-message")}`).toBe(code);
    }
    expect(await voiceBalance(t, account)).toBe(10);
    const noCredit = await legacy(t, "/httpapi/send", { ...credentials(broke), ...base });
    expect(noCredit.text).toBe("-12");
    // Any other letter is still no route at all.
    const unknown = await legacy(t, "/httpapi/send", { ...credentials(account), ...base, route: "X" });
    expect(unknown.text).toBe("-17");
  });
});
