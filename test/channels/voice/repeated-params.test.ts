// A voice parameter given more than once: `to` twice (or as a JSON array) asks for two calls
// where one is placed (it called the first number only), `from` and `text` twice for one of two
// callers or texts. Refused by the parameter's code of the short set, nothing placed or charged:
// -5 to, -10 from, -6 text, -7 for two keys; the same value again is that value.
import { expect, it } from "vitest";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { legacy } from "../../helpers/legacy.js";
import {
  buildVoiceAccount,
  CALLER,
  callParams,
  expectBroadcastId,
  FAST_VOICE_SIMULATOR,
  voiceBalance,
} from "./helpers.js";

/** A call with `pairs` in order (a name may repeat): GET, FORM (urlencoded) or MULTIPART. */
async function repeated(t: TestGateway, pairs: [string, string][], method: "GET" | "FORM" | "MULTIPART") {
  const path = method === "GET" ? "/voicecall/v1/send" : "/voicecall/v1/post/send";
  const response = await legacy(t, path, pairs, method === "FORM" ? "POST" : method);
  return { ...response, contentType: response.headers.get("content-type") };
}

function pairsOf(account: TestAccount): [string, string][] {
  return Object.entries(callParams(account)).map(([name, value]): [string, string] => [name, String(value)]);
}

describeEnginesTogether("voice: a parameter given more than once", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_VOICE_SIMULATOR });

  it("another to, from or text is refused by its code, nothing placed; the same value again is that value", async () => {
    const t = gateway();
    const account = await buildVoiceAccount(t);
    for (const method of ["GET", "FORM", "MULTIPART"] as const) {
      for (const [extra, code] of [
        [["to", "9876543211"], "-5"],
        [["TO", "9876543210, 9876543211"], "-5"],
        [["from", "+918047110001"], "-10"],
        [["Text", "Another text"], "-6"],
        [["apikey", "sb_other"], "-7"],
      ] as [[string, string], string][]) {
        const answer = await repeated(t, [...pairsOf(account), extra], method);
        expect({ status: answer.status, text: answer.text }, `${method} ${extra[0]}`).toEqual({
          status: 200,
          text: code,
        });
      }
      expectBroadcastId(await repeated(t, [...pairsOf(account), ["From", CALLER]], method), account, method);
    }
    const json = await fetch(`${t.url}/voicecall/v1/jpost/send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...callParams(account), to: ["9876543210", "9876543211"] }),
    });
    expect(await json.text()).toBe("-5");
    expect(await voiceBalance(t, account)).toBe(97);
  });
});
