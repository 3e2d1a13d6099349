// What a black-box probe of the email API found (issue 22): refusals that hung the keep-alive
// connection, -14 for bad input, header injection through address fields, attachments dropped
// while charged, and template placeholders that reached Object.prototype.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { multipartBody, RawConnection } from "../../helpers/raw-http.js";
import { base, emailAccount, storedContent } from "./helpers.js";

const SEND = "/httpemailapi/v1/send";

async function sentCount(t: TestGateway, account: TestAccount) {
  const [messages, wallet] = await Promise.all([
    t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", account.id).execute(),
    t.db.store.db
      .selectFrom("wallets")
      .select("balance")
      .where("account_id", "=", account.id)
      .where("wallet", "=", "email")
      .executeTakeFirstOrThrow(),
  ]);
  return { messages: messages.length, balance: Number(wallet.balance) };
}

describeEachEngine("email API hardening", (engine) => {
  const gateway = useTestGateway(engine);

  // A refusal answered before the body was read left the rest of the body in the socket, so the
  // next request on the connection got no answer until the socket timed out (~66 s).
  it.each([
    [
      "too many attachments",
      (a: TestAccount) =>
        multipartBody(
          base(a),
          Array.from({ length: 12 }, (_, i) => ({
            field: "attachment",
            filename: `f${i}.txt`,
            content: "x".repeat(1000),
          })),
        ),
    ],
    [
      "an attachment over the limit",
      (a: TestAccount) =>
        multipartBody(base(a), [
          { field: "attachment", filename: "big.bin", content: Buffer.alloc(10 * 1024 * 1024 + 10) },
          { field: "attachment", filename: "after.txt", content: "after" },
        ]),
    ],
    [
      "an unexpected file field",
      (a: TestAccount) =>
        multipartBody(base(a), [
          { field: "photo", filename: "p.jpg", content: "x".repeat(100_000) },
          { field: "attachment", filename: "a.txt", content: "y".repeat(100_000) },
        ]),
    ],
    [
      "2,000 text fields",
      (a: TestAccount) =>
        multipartBody({ ...base(a), ...Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`f${i}`, "v"])) }),
    ],
  ])("answers -11 for %s and the connection answers the next request at once", async (_what, build) => {
    const t = gateway();
    const account = await emailAccount(t);
    const { body, contentType } = build(account);
    const connection = await RawConnection.open(t.url);
    try {
      const refused = await connection.request("POST", SEND, {
        headers: { "content-type": contentType },
        body,
        timeoutMs: 5_000,
      });
      expect(refused.body).toBe("-11");
      const next = await connection.request("GET", "/healthz");
      expect(next.status).toBe(200);
    } finally {
      connection.close();
    }
    expect(await sentCount(t, account)).toEqual({ messages: 0, balance: 20_000 });
  });

  it("answers -11, not -14, for malformed bodies", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const fields = new URLSearchParams(base(account)).toString();
    const malformed: Array<[string, string | Buffer]> = [
      ["multipart/form-data", fields],
      ["multipart/form-data; boundary=", fields],
      ["multipart/form-data; boundary=abc", '--abc\r\nContent-Disposition: form-data; name="to"\r\n\r\nx'],
      ["multipart/form-data; boundary=abc", "garbage without a boundary line"],
      ["multipart/mixed; boundary=abc", fields],
      ["application/json", "{not json"],
      ["text/xml", "<a/>"],
      ["application/x-www-form-urlencoded", `${fields}&html=${"x".repeat(5 * 1024 * 1024)}`],
    ];
    for (const [contentType, body] of malformed) {
      const connection = await RawConnection.open(t.url);
      try {
        const answer = await connection.request("POST", SEND, { headers: { "content-type": contentType }, body });
        expect([contentType, answer.status, answer.body]).toEqual([contentType, 200, "-11"]);
      } finally {
        connection.close();
      }
    }
    expect(await sentCount(t, account)).toEqual({ messages: 0, balance: 20_000 });
  });

  // `to=a@example.org\r\nBcc: x@evil.example` dropped the first address and sent to the second.
  it.each([
    ["to", "asha@example.org\r\nBcc: x@evil.example"],
    ["to", "asha@example.org\nx@evil.example"],
    ["to", "asha@example.org\u0000"],
    ["cc", "ravi@example.org\rBcc: x@evil.example"],
    ["bcc", "ravi@example.org\u0007"],
    ["replyto", "help@shop.example.com\r\nBcc: x@evil.example"],
    ["from", "Shop\r\nBcc: x@evil.example <news@shop.example.com>"],
    ["from", '"Shop\u0000" <news@shop.example.com>'],
    ["to", "Asha\u001b <asha@example.org>"],
  ])("refuses a control character in %s with -11", async (field, value) => {
    const t = gateway();
    const account = await emailAccount(t);
    const answer = await call(t, "POST", SEND, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...base(account), [field]: value }).toString(),
    });
    expect(answer.text).toBe("-11");
    expect(await sentCount(t, account)).toEqual({ messages: 0, balance: 20_000 });
  });

  // SQLite stored and sent a NUL in these; PostgreSQL refused the write (-11 unnamed). Both refuse it now.
  it.each([
    ["subject", "Your\u0000 order"],
    ["html", "<p>Hello\u0000</p>"],
    ["text", "Hello\u0000"],
    ["callbackdata", "campaign\u0000"],
    ["defaultplaceholders", '{"x":"\\u0000"}'],
  ])("refuses a NUL in %s with -11 on both engines, naming the field", async (field, value) => {
    const t = gateway();
    const account = await emailAccount(t);
    const fields = { ...base(account), subject: "Your order {{x}}", [field]: value };
    const answer = await call(t, "POST", SEND, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    expect(answer.text).toBe("-11");
    expect(await sentCount(t, account)).toEqual({ messages: 0, balance: 20_000 });
    const v2 = await call(t, "POST", "/api/v2/email/send", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: {
        from: fields.from,
        to: fields.to,
        subject: fields.subject,
        html: fields.html,
        ...(field === "text" ? { text: value } : {}),
        ...(field === "callbackdata" ? { callback_data: value } : {}),
        ...(field === "defaultplaceholders" ? { placeholders: { x: "\u0000" } } : {}),
      },
    });
    expect(v2.status).toBe(400);
    expect(v2.body.error.field).toBe(
      field === "callbackdata" ? "callbackdata" : field === "defaultplaceholders" ? "subject" : field,
    );
  });

  it("answers a username or a status id with a NUL the same on both engines", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const { api_key: _key, ...fields } = base(account);
    const answer = await call(t, "POST", SEND, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        ...fields,
        username: `${account.username}\u0000`,
        password: account.password,
      }).toString(),
    });
    // SQLite answered -7, PostgreSQL -11: refused before the password check, as the console's sign-in.
    expect(answer.text).toBe("-11");
    const status = await call(t, "GET", "/api/v2/email/status/2_%00", {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    // SQLite answered 404, PostgreSQL 400: no send has such an id, as the SMS status answers.
    expect(status.status).toBe(404);
    expect(status.body.error.code).toBe("not_found");
  });

  it("refuses an attachment part without a file name instead of dropping it", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    for (const file of [
      { field: "attachment", content: "%PDF-1.4 the invoice", type: "application/pdf" },
      { field: "attachment", filename: "", content: "%PDF-1.4 the invoice", type: "application/pdf" },
    ]) {
      const { body, contentType } = multipartBody(base(account), [file]);
      const response = await fetch(`${t.url}${SEND}`, {
        method: "POST",
        headers: { "content-type": contentType },
        body,
      });
      expect(await response.text()).toBe("-11");
    }
    expect(await sentCount(t, account)).toEqual({ messages: 0, balance: 20_000 });
    // An empty file input (the form's "no file chosen") is still no attachment at all.
    const { body, contentType } = multipartBody(base(account), [{ field: "attachment", filename: "", content: "" }]);
    const response = await fetch(`${t.url}${SEND}`, { method: "POST", headers: { "content-type": contentType }, body });
    expect(await response.text()).toMatch(/^\d+_\d{8}_\d+$/);
  });

  // {{constructor}} answered -14 with a TypeError, {{{constructor}}} put "function Object() {
  // [native code] }" into the sent HTML, {{toString}} and {{__proto__}} reached the subject.
  it("fills placeholders from the given values only, never from Object.prototype", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const names = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"];
    const html = names.map((name) => `<p>{{${name}}} {{{${name}}}}</p>`).join("");
    const subject = names.map((name) => `{{${name}}}`).join(" ");
    for (const defaults of [undefined, "{}", '{"name":"Asha"}']) {
      const answer = await call(t, "POST", SEND, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          ...base(account),
          subject: `${subject} {{polluted}}`,
          html: `${html}{{polluted}}`,
          text: subject,
          ...(defaults === undefined ? {} : { defaultplaceholders: defaults }),
        }).toString(),
      });
      expect(answer.text).toMatch(/^\d+_\d{8}_\d+$/);
      const content = await storedContent(t, answer.text);
      expect(content.subject).toBe(`${subject} {{polluted}}`);
      expect(content.html).toBe(`${html}{{polluted}}`);
      expect(content.text).toBe(subject);
    }
    // A value that is not a string cannot smuggle an object in as the prototype.
    const polluting = await call(t, "POST", SEND, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        ...base(account),
        defaultplaceholders: '{"__proto__":{"polluted":"yes"}}',
      }).toString(),
    });
    expect(polluting.text).toBe("-11");
    // An own value named like a prototype member is a value like any other.
    const own = await call(t, "POST", SEND, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        ...base(account),
        subject: "{{constructor}}",
        defaultplaceholders: JSON.stringify({ constructor: "Builder" }),
      }).toString(),
    });
    const row = await t.db.store.db
      .selectFrom("email_contents")
      .select("subject")
      .where("broadcast_id", "=", own.text)
      .executeTakeFirstOrThrow();
    expect(row.subject).toBe("Builder");
  });
});
