// Unicode on the XML API (audit L6), on both engines through the real server. The spec gives the
// XML API's <message> only pno and msg, no Unicode marker, so it carries GSM-7 text only: a text
// outside GSM-7 answers -40 and X-Error-Message says where Unicode can be sent instead (not the
// legacy parameters the XML API does not have), naming the characters as \uXXXX escapes, since
// an HTTP header carries Latin-1 at most. The legacy send's -40 names its own remedies.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, pushsms, sendParams, xmlSend } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR } from "../../helpers/sms.js";

/** "Namaste" in Devanagari: न म स ् त े. */
const HINDI = "\u0928\u092e\u0938\u094d\u0924\u0947";

describeEachEngine("XML API: GSM-7 text only, and -40 says so", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });

  it("answers -40 for Hindi, naming the characters as escapes and the APIs that send Unicode", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const answer = await xmlSend(t, pushsms(credentials(account), { messages: [{ pno: "9876543210", msg: HINDI }] }));
    expect({ status: answer.status, text: answer.text }).toEqual({ status: 200, text: "-40" });
    const why = answer.headers.get("x-error-message") ?? "";
    expect(why).toContain("(\\u0928 \\u092E \\u0938\\u094D \\u0924\\u0947)");
    expect(why).toContain("the XML API sends GSM-7 text only");
    expect(why).toContain("/httpapi/send");
    expect(why).not.toContain("?");
    expect(why).not.toMatch(/type=2 with|send it as Unicode\.$/);
    expect(await balanceOf(t, account)).toBe(10);
  });

  it("the legacy send's -40 names its own remedies, text or type=2", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const answer = await legacy(t, "/httpapi/send", sendParams(account, { message: `${HINDI} \u{1F600}` }));
    expect(answer.text).toBe("-40");
    const why = answer.headers.get("x-error-message") ?? "";
    // A character outside the BMP is two escapes, as in a JSON string.
    expect(why).toContain("\\u0928");
    expect(why).toContain("\\uD83D\\uDE00");
    expect(why).toContain("text parameter");
    expect(why).toContain("type=2");
  });

  it("any explanation names a Latin-1 character as an escape too, and leaves printable ASCII as it is", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const answer = await legacy(t, "/httpapi/send", sendParams(account, { shorturl: "\\x\u00e9" }));
    expect(answer.text).toBe("-8");
    expect(answer.headers.get("x-error-message")).toBe('shorturl must be 1 or 0, not "\\x\\u00E9".');
  });
});
