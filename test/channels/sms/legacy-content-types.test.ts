// The body types of the legacy family (audit L5), on both engines through the real server: forms
// (urlencoded, multipart) and, as clients have relied on, a JSON object; a body of another type
// (XML, text/plain, …) answers the family's -8 with an X-Error-Message naming the types it takes,
// never read as no body (a text/plain body was silently dropped, and the query alone sent). An
// empty body of any type is no body. The XML API answers -9, naming its form field.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { credentials, expectBroadcastId, pushsms, sendParams, type TextResponse } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR } from "../../helpers/sms.js";

async function post(t: TestGateway, path: string, contentType: string, body: string): Promise<TextResponse> {
  const response = await fetch(`${t.url}${path}`, { method: "POST", headers: { "content-type": contentType }, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.append(name, value);
  return search.toString();
}

describeEachEngine("legacy family: the body types it takes", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });

  async function stored(t: TestGateway, account: TestAccount): Promise<number> {
    const rows = await t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", account.id).execute();
    return rows.length;
  }

  it("answers -8 naming the form types for a body of another type, sending nothing", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const params = query(sendParams(account));
    for (const path of ["/httpapi/send", "/api/secure_api/httpapi/send"]) {
      for (const [type, body] of [
        ["application/xml", "<x/>"],
        ["text/xml", "<x/>"],
        ["text/plain", params],
        ["text/plain; charset=utf-8", "hello"],
        ["application/octet-stream", "\u0001\u0002"],
      ] as const) {
        // The send's parameters in the query too: a body that is not read must not let them send.
        const answer = await post(t, `${path}?${params}`, type, body);
        const what = `${path} ${type}`;
        expect({ status: answer.status, text: answer.text }, what).toEqual({ status: 200, text: "-8" });
        expect(answer.headers.get("content-type"), what).toMatch(/^text\/plain/);
        const why = answer.headers.get("x-error-message") ?? "";
        expect(why, what).toContain("application/x-www-form-urlencoded");
        expect(why, what).toContain("multipart/form-data");
        expect(why, what).not.toContain("send application/json");
      }
    }
    const credits = await post(t, "/api/getcredits", "text/plain", query(credentials(account)));
    expect(credits.text).toBe("-8");
    expect(await stored(t, account)).toBe(0);
    expect(await balanceOf(t, account)).toBe(10);
  });

  it("reads a form, a JSON object, and an empty body of any type as no body", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const params = sendParams(account);
    expectBroadcastId(await post(t, "/httpapi/send", "application/x-www-form-urlencoded", query(params)), account);
    expectBroadcastId(await post(t, "/httpapi/send", "application/json", JSON.stringify(params)), account, "json");
    // fetch sends a POST with body "" as text/plain: the query's parameters send.
    expectBroadcastId(
      await post(t, `/httpapi/send?${query(params)}`, "text/plain;charset=UTF-8", ""),
      account,
      "empty",
    );
    expect(await stored(t, account)).toBe(3);
  });

  it("reads a JSON object's numbers and booleans as the text a form carries", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const json = (path: string, body: Record<string, unknown>) =>
      post(t, path, "application/json", JSON.stringify(body));
    const params = sendParams(account);
    // {"type": 2} is type=2: the hex is the text's UTF-16BE, never sent as its digits.
    const hex = Buffer.from("नमस्ते", "utf16le").swap16().toString("hex");
    expectBroadcastId(await json("/httpapi/send", { ...params, message: hex, type: 2 }), account, "type 2");
    // A number written as a JSON number is a number given (it answered -5, no recipient).
    expectBroadcastId(
      await json("/httpapi/send", { ...params, phonenumber: 9876543211, message: "Hello" }),
      account,
      "phonenumber",
    );
    const bodies = await t.db.store.db
      .selectFrom("messages")
      .select(["body", "recipient"])
      .where("account_id", "=", account.id)
      .orderBy("id")
      .execute();
    expect(bodies).toEqual([
      { body: "नमस्ते", recipient: "9876543210" },
      { body: "Hello", recipient: "9876543211" },
    ]);
    // {"limit": 1} pages as limit=1 does (it was dropped: the default 100 rows).
    const page = await json("/httpapi/mis", { ...credentials(account), limit: 1 });
    expect(JSON.parse(page.text)).toHaveLength(1);
    // A DLT ID written as a number JSON.parse has rounded is refused, not read as another ID.
    const written = `${JSON.stringify(params).slice(0, -1)},"dlt_template_id":1107160000000000001}`;
    const rounded = await post(t, "/httpapi/send", "application/json", written);
    expect(rounded.text).toBe("-8");
    expect(rounded.headers.get("x-error-message")).toContain('"dlt_template_id" is a JSON number too large');
    expect(await stored(t, account)).toBe(2);
  });

  it("the XML API answers -9 for a body that is not a form, naming the field", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const doc = pushsms(credentials(account), { messages: [{ pno: "9876543210", msg: "hello" }] });
    for (const type of ["text/plain", "application/xml"]) {
      const answer = await post(t, "/xmlapi/send", type, doc);
      expect(answer.text, type).toBe("-9");
      expect(answer.headers.get("x-error-message"), type).toContain("form field xmlstring");
    }
    expect(await stored(t, account)).toBe(0);
  });
});
