// A legacy parameter given more than once: `phonenumber` is a list (legacy-calls.test.ts); any
// other the family reads, given again with another value (or as a JSON array), is refused in the
// family's dialect, naming it, nothing sent or charged (it kept the first value, and sent a text
// or from a sender the client may not have meant); the same value again is that value.
import { expect, it } from "vitest";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { expectBroadcastId, legacy, pushsms, sendParams, type TextResponse } from "../../helpers/legacy.js";

const TEMPLATE_TEXT = "Hello from Switchboard";

function pairsOf(account: TestAccount, ...extra: [string, string][]): [string, string][] {
  const base = Object.entries(sendParams(account)).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return [...base, ...extra];
}

async function messageCount(t: TestGateway, account: TestAccount): Promise<number> {
  const row = await t.db.store.db
    .selectFrom("messages")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("account_id", "=", account.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function expectRefused(response: TextResponse, code: string, name: string, what: string): void {
  expect({ status: response.status, text: response.text }, what).toEqual({ status: 200, text: code });
  expect(response.headers.get("x-error-message"), what).toBe(
    `Parameter "${name}" is given more than once with different values (or as a list): give it once. Nothing was sent or changed.`,
  );
}

describeEnginesTogether("legacy: a parameter given more than once", (engine) => {
  const gateway = useTestGateway(engine, { env: { LEGACY_THROTTLE_PER_SECOND: "0" } });

  it("another message, sender_id or route refuses the send -8 naming it; the same value again is that value", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    for (const method of ["GET", "POST", "MULTIPART"] as const) {
      for (const [name, other] of [
        ["message", "Another text"],
        ["MESSAGE", ""],
        ["sender_id", "OTHERS"],
        ["route", "P"],
      ] as const) {
        const answer = await legacy(t, "/httpapi/send", pairsOf(account, [name, other]), method);
        expectRefused(answer, "-8", name.toLowerCase(), `${method} ${name}`);
      }
      const again = await legacy(t, "/httpapi/send", pairsOf(account, ["Message", TEMPLATE_TEXT]), method);
      expectBroadcastId(again, account, `${method} the same message again`);
    }
    expect(await messageCount(t, account)).toBe(3);
  });

  it("a JSON array for a single-valued parameter is refused -8, even of one value", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    for (const message of [[TEMPLATE_TEXT], [TEMPLATE_TEXT, "Another text"]]) {
      const response = await fetch(`${t.url}/api/secure_api/httpapi/send`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...sendParams(account), message }),
      });
      const answer = { status: response.status, headers: response.headers, text: await response.text() };
      expectRefused(answer, "-8", "message", JSON.stringify(message));
    }
    expect(await messageCount(t, account)).toBe(0);
  });

  it("two different passwords or keys are -7 (no login is tried); the XML document given twice -9", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const twice = await legacy(t, "/httpapi/send", pairsOf(account, ["password", "another-one"]), "GET");
    expectRefused(twice, "-7", "password", "password");
    const keys = await legacy(
      t,
      "/api/getcredits",
      [
        ["apikey", account.apiKey],
        ["ApiKey", "sb_other"],
      ],
      "POST",
    );
    expectRefused(keys, "-7", "apikey", "apikey");
    const doc = pushsms(account, { messages: [{ pno: "9876543210", msg: TEMPLATE_TEXT }] });
    const xml = await legacy(
      t,
      "/xmlapi/send",
      [
        ["xmlstring", doc],
        ["xmlstring", doc.replace("9876543210", "9876543211")],
      ],
      "POST",
    );
    expect({ status: xml.status, text: xml.text }).toEqual({ status: 200, text: "-9" });
    expect(xml.headers.get("x-error-message")).toContain('Parameter "xmlstring" is given more than once');
    expect(await messageCount(t, account)).toBe(0);
  });
});
