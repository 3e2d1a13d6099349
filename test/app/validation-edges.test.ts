// The edges of validation a black-box probe found (issue 22, point 10), each through the real
// server.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../helpers/gateway.js";
import { legacy, pushsms, sendParams, xmlSend } from "../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR, keyOf, sendSms } from "../helpers/sms.js";

const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"];
const OTP = { sender_id: "SWBRD", recipient: "9876543210", message: "Your OTP is 482913." };

describeEachEngine("validation edges", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });
  let account: TestAccount;

  beforeAll(async () => {
    account = await buildAccount(gateway(), { credits: { sms: 100, whatsapp: 10 } });
  });

  it("answers invalid_route (v2) and -17 (legacy, XML) for route names Object.prototype has", async () => {
    const t = gateway();
    for (const route of PROTOTYPE_NAMES) {
      const v2 = await sendSms(t, account, { ...OTP, route });
      expect(v2.status, route).toBe(422);
      expect(v2.body.error.code, route).toBe("invalid_route");
      const bulk = await call(t, "POST", "/api/v2/sms/bulk", {
        headers: keyOf(account),
        json: { ...OTP, recipient: undefined, recipients: ["9876543210"], route },
      });
      expect(bulk.body.error?.code, route).toBe("invalid_route");
      expect((await legacy(t, "/httpapi/send", sendParams(account, { route }))).text, route).toBe("-17");
      const xml = pushsms(account, { sender: "SWBRD", route, messages: [{ pno: "9876543210", msg: "Hi" }] });
      expect((await xmlSend(t, xml)).text, route).toBe("-17");
    }
    expect(await balanceOf(t, account)).toBe(100);
  });
});
