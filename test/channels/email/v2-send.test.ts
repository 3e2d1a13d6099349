// POST /api/v2/email/send: the email family's send in JSON and the v2 envelope, with the same
// checks and charge (sendEmail), placeholders and templates, refusals with the field they name.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { emailAccount, storedContent } from "./helpers.js";

const send = (t: TestGateway, account: TestAccount, json: unknown) =>
  call(t, "POST", "/api/v2/email/send", { headers: { authorization: `Bearer ${account.apiKey}` }, json });

describeEachEngine("v2 email send", (engine) => {
  const gateway = useTestGateway(engine);

  it("sends to every recipient once, charges 1 credit each and fills the placeholders", async () => {
    const t = gateway();
    const account = await emailAccount(t, 10);
    const sent = await send(t, account, {
      from: "Shop <news@shop.example.com>",
      to: "asha@example.org, Ravi <ravi@example.org>",
      cc: "RAVI@example.org",
      subject: "Order {{order}}",
      html: "<p>Hello {{name}}</p>",
      placeholders: { order: 42, name: "Asha & co" },
    });
    expect(sent.status, sent.text).toBe(201);
    const broadcastId = sent.body.data.broadcast_id as string;
    expect(broadcastId).toMatch(/^\d+_\d{8}_\d+$/);
    expect(await storedContent(t, broadcastId)).toMatchObject({
      subject: "Order 42",
      html: "<p>Hello Asha &amp; co</p>",
    });
    const status = await call(t, "GET", `/api/v2/email/status/${broadcastId}`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(status.body.data.recipients.map((r: { email: string }) => r.email)).toEqual([
      "asha@example.org",
      "ravi@example.org",
    ]);
    const credits = await call(t, "GET", "/api/v2/credits", { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(credits.body.data.wallets.email).toBe(8);
  });

  it("refuses what the family refuses, naming the field, and charges nothing", async () => {
    const t = gateway();
    const account = await emailAccount(t, 1);
    const base = { from: "news@shop.example.com", to: "asha@example.org", subject: "Hi", html: "<p>Hi</p>" };
    const cases: [unknown, number, string, string?][] = [
      [{ ...base, from: "news@elsewhere.example" }, 400, "invalid_request", "from"],
      [{ ...base, html: " " }, 400, "invalid_request", "html"],
      // A send to bcc alone is refused (docs/api.md, Known limits).
      [{ ...base, to: "", bcc: "asha@example.org" }, 400, "invalid_request", "to"],
      [{ ...base, template_id: 999 }, 400, "invalid_request", "templateid"],
      [{ ...base, send_at: "tomorrow" }, 400, "invalid_request", "sendat"],
      [{ ...base, attachment: "x" }, 400, "invalid_request"],
      // Issue 22, point 8: a line break in any address field would start a header of its own.
      [{ ...base, to: "asha@example.org\r\nBcc: x@evil.example" }, 400, "invalid_request", "to"],
      [{ ...base, cc: "ravi@example.org\nx@evil.example" }, 400, "invalid_request", "cc"],
      [{ ...base, bcc: "ravi@example.org\u0000" }, 400, "invalid_request", "bcc"],
      [{ ...base, reply_to: "help@shop.example.com\r\nBcc: x@evil.example" }, 400, "invalid_request", "replyto"],
      [{ ...base, from: "Shop\r\nBcc: x@evil.example <news@shop.example.com>" }, 400, "invalid_request", "from"],
      [{ ...base, to: "a@example.org, b@example.org" }, 402, "insufficient_credits"],
    ];
    for (const [body, status, code, field] of cases) {
      const refused = await send(t, account, body);
      expect({ status: refused.status, code: refused.body.error.code }, refused.text).toEqual({ status, code });
      if (field) expect(refused.body.error.field).toBe(field);
    }
    const credits = await call(t, "GET", "/api/v2/credits", { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(credits.body.data.wallets.email).toBe(1);
  });
});
