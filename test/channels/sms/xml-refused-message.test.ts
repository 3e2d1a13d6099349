// A `pushsms` document is refused whole when one of its messages is refused (docs/api.md, XML
// API), and the refusal says which (TRAI audit, item 4): X-Error-Message opens with the message's
// position (1-based) and its `pno`, and the log of refusals keeps only that number, not the
// document's other numbers, which were fine. Through the real server on both engines.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { credentials, operatorCall, pushsms, xmlSend } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";

describeEachEngine("XML API: the refused message of a document", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });
  let account: TestAccount;
  beforeAll(async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    account = await buildAccount(t, { dltScrubbing: true, credits: { sms: 100 } });
    const u = account.username;
    await operatorCall(t, operator, "POST", `/accounts/${u}/dlt/headers`, { header: "SWBRD" });
    await operatorCall(t, operator, "POST", `/accounts/${u}/dlt/entities`, { entity_id: "1101160000000000001" });
    await operatorCall(t, operator, "POST", `/accounts/${u}/templates`, {
      name: "otp",
      content: "Your OTP is {#var#}.",
      approve: true,
    });
  });

  it("names the message by position and pno, and logs only its number", async () => {
    const t = gateway();
    const before = await balanceOf(t, account);
    const answer = await xmlSend(
      t,
      pushsms(credentials(account), {
        sender: "SWBRD",
        route: "T",
        messages: [
          { pno: "9876543210", msg: "Your OTP is 1234." },
          { pno: "9876543211", msg: "Win a prize now" },
          { pno: "9876543212", msg: "Your OTP is 5678." },
        ],
      }),
    );
    expect(answer.text).toBe("-8");
    expect(answer.headers.get("x-error-message")).toMatch(/^Message 2 \(pno 9876543211\): Transactional content/);
    expect(await balanceOf(t, account)).toBe(before);
    await t.gateway.ctx.refusals.flush();
    const log = await call(t, "GET", "/api/v2/refusals?code=dlt_template_mismatch", { headers: keyOf(account) });
    expect(log.status, log.text).toBe(200);
    const rows = log.body.data as { recipients: string[]; text?: string; message?: string }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.recipients).toEqual(["9876543211"]);
  });
});
