// The legacy, XML and voice families read "form parameters" in either encoding: a client that
// posts multipart/form-data (PHP's cURL given an array, Postman's form-data) is read as one that
// posts urlencoded. A file part, a body without a length and one over the limit are refused in
// the family's own plain-text codes, charging nothing; v2 still takes JSON only.
import { request as httpRequest } from "node:http";
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { credentials, expectBroadcastId, pushsms, sendParams } from "../../helpers/legacy.js";
import { multipartBody } from "../../helpers/raw-http.js";
import { FAST_SIMULATOR } from "../../helpers/sms.js";

interface Answer {
  status: number;
  type: string | undefined;
  text: string;
}

/** POSTs a multipart body; `chunked` leaves Content-Length out (Transfer-Encoding: chunked). */
function postMultipart(
  t: TestGateway,
  path: string,
  fields: Record<string, string | undefined>,
  options: { files?: Parameters<typeof multipartBody>[1]; chunked?: boolean } = {},
): Promise<Answer> {
  const given = Object.entries(fields).filter((field): field is [string, string] => field[1] !== undefined);
  const { body, contentType } = multipartBody(Object.fromEntries(given), options.files ?? []);
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${t.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": contentType,
        ...(options.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(body.length) }),
      },
    });
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          type: response.headers["content-type"],
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    request.on("error", reject);
    request.end(body);
  });
}

function expectCode(answer: Answer, code: string, what: string): void {
  expect({ status: answer.status, text: answer.text }, what).toEqual({ status: 200, text: code });
  expect(answer.type, what).toBe("text/plain; charset=utf-8");
}

describeEachEngine("form parameters as multipart/form-data", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });

  const balance = async (t: TestGateway, account: { apiKey: string }) =>
    (await call(t, "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${account.apiKey}` } })).body.data
      .balance;

  it("sends on both legacy prefixes and the XML API, storing the text as written", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const text = "Order 7 shipped: ₹499 — track at your convenience";
    for (const path of ["/httpapi/send", "/api/secure_api/httpapi/send"]) {
      // `text`: the hybrid field that takes Unicode as written.
      const fields = sendParams(account, { message: undefined, text });
      const sent = await postMultipart(t, path, fields);
      const id = expectBroadcastId({ status: sent.status, headers: new Headers(), text: sent.text }, account, path);
      const row = await t.db.store.db
        .selectFrom("messages")
        .select(["body", "recipient"])
        .where("broadcast_id", "=", id)
        .executeTakeFirstOrThrow();
      expect(row, path).toEqual({ body: text, recipient: "9876543210" });
    }
    const xml = pushsms(credentials(account), { messages: [{ pno: "9876543211", msg: "hello from a form" }] });
    const viaXml = await postMultipart(t, "/xmlapi/send", { xmlstring: xml });
    expectBroadcastId({ status: viaXml.status, headers: new Headers(), text: viaXml.text }, account, "xml");
    const credits = await postMultipart(t, "/api/getcredits", credentials(account));
    expectCode(credits, String(await balance(t, account)), "getcredits");
  });

  it("refuses a file part, a body without a length and one over the limit, charging nothing", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const fields = sendParams(account);
    delete fields.message;
    const file = [{ field: "message", filename: "m.txt", content: "hello", type: "text/plain" }];
    expectCode(await postMultipart(t, "/httpapi/send", fields, { files: file }), "-8", "a file part");
    expectCode(await postMultipart(t, "/httpapi/send", fields, { chunked: true }), "-8", "no Content-Length");
    const huge = { ...fields, padding: "x".repeat(4 * 1024 * 1024) };
    expectCode(await postMultipart(t, "/httpapi/send", huge), "-8", "over 4 MiB");
    const xml = pushsms(credentials(account), { messages: [{ pno: "9876543210", msg: "hi" }] });
    expectCode(await postMultipart(t, "/xmlapi/send", { xmlstring: xml }, { chunked: true }), "-9", "xml, no length");
    // The voice API answers a form it cannot read as one without the text (-6).
    const call = { apikey: account.apiKey, from: "+918047110000", to: "9876543210", text: "hello" };
    expectCode(await postMultipart(t, "/voicecall/v1/post/send", call, { files: file }), "-6", "voice, a file part");
    expectCode(await postMultipart(t, "/voicecall/v1/post/send", call, { chunked: true }), "-6", "voice, no length");
    expect(await balance(t, account)).toBe(100);
    // A multipart Content-Type without a boundary (or an empty one): nothing can be read (it was -14).
    for (const type of ["multipart/form-data", "multipart/form-data; boundary="]) {
      const query = new URLSearchParams({ ...credentials(account), apikey: account.apiKey }).toString();
      for (const [path, code] of [
        ["/httpapi/send", "-8"],
        ["/api/getcredits", "-8"],
        ["/httpapi/dlr", "-8"],
        ["/xmlapi/send", "-9"],
        ["/voicecall/v1/post/send", "-6"],
        ["/voicecall/v1/jpost/send", "-6"],
      ] as const) {
        const response = await fetch(`${t.url}${path}?${query}`, {
          method: "POST",
          headers: { "content-type": type },
          body: "sender_id=SWBRD",
        });
        const answer = { status: response.status, type: response.headers.get("content-type") ?? undefined };
        expectCode({ ...answer, text: await response.text() }, code, `${path}, ${type}`);
        if (!path.startsWith("/voicecall") && path !== "/xmlapi/send") {
          expect(response.headers.get("x-error-message"), path).toContain("boundary");
        }
      }
    }
    // The reader's own words were "reach files limit" and "reach parts limit": say what is refused.
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, "v"]));
    for (const [what, form, reason] of [
      ["a file part", multipartBody(fields as Record<string, string>, file), "A file part is not read here"],
      ["101 fields", multipartBody({ ...(fields as Record<string, string>), ...many }), "more than 100"],
    ] as const) {
      const response = await fetch(`${t.url}/httpapi/send`, {
        method: "POST",
        headers: { "content-type": form.contentType },
        body: form.body,
      });
      expect(await response.text(), what).toBe("-8");
      expect(response.headers.get("x-error-message"), what).toContain(reason);
    }
    // The v2 family still reads JSON only.
    const v2 = await postMultipart(t, "/api/v2/sms/send", {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "x",
    });
    expect(v2.status, v2.text).toBe(415);
  });
});
