// The edges of validation a black-box probe found (issue 22, point 10), each through the real
// server.
import { connect } from "node:net";
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../helpers/gateway.js";
import { legacy, pushsms, sendParams, xmlSend } from "../helpers/legacy.js";
import { RawConnection } from "../helpers/raw-http.js";
import { balanceOf, FAST_SIMULATOR, keyOf, sendSms } from "../helpers/sms.js";

const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"];
const OTP = { sender_id: "SWBRD", recipient: "9876543210", message: "Your OTP is 482913." };

/** One request written byte for byte on a socket (what fetch refuses to send); the whole answer as text. */
function rawRequest(port: number, head: string, body = ""): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(`${head}\r\n\r\n${body}`));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

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

  it("refuses form and text bodies on the v2 JSON calls with 415 in the v2 envelope, and stores nothing", async () => {
    const t = gateway();
    const form = await call(t, "POST", "/api/v2/sms/send", {
      headers: { ...keyOf(account), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(OTP).toString(),
    });
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({ success: false, error: { code: "invalid_request" } });
    const text = await call(t, "POST", "/api/v2/sms/send", {
      headers: { ...keyOf(account), "content-type": "text/plain" },
      body: JSON.stringify(OTP),
    });
    expect(text.status).toBe(415);
    expect(text.body).toMatchObject({ success: false, error: { code: "invalid_request" } });
    const resource = await call(t, "PUT", "/api/v2/webhooks", {
      headers: { ...keyOf(account), "content-type": "application/x-www-form-urlencoded" },
      body: "delivery_report=https%3A%2F%2Fhooks.example.com%2Fsms",
    });
    expect(resource.status).toBe(415);
    expect(resource.body).toMatchObject({ status: "error", error: { code: "invalid_request" } });
    const garbage = await call(t, "POST", "/api/v2/sms/send", {
      headers: { ...keyOf(account), "content-type": "garbage" },
      body: JSON.stringify(OTP),
    });
    expect(garbage.status).toBe(415);
    expect(garbage.body).toMatchObject({ success: false, error: { code: "invalid_request" } });
    const settings = await call(t, "GET", "/api/v2/webhooks", { headers: keyOf(account) });
    expect(settings.body.data.delivery_report).toBeNull();
    expect(await balanceOf(t, account)).toBe(100);
  });

  it("answers a request Node's parser refuses in the family's dialect, not Fastify's", async () => {
    const t = gateway();
    const port = Number(new URL(t.url).port);
    const badHeader = "Content-Type: application/json\u0001";
    const sms = await rawRequest(
      port,
      `POST /api/v2/sms/send HTTP/1.1\r\nHost: x\r\n${badHeader}\r\nContent-Length: 2`,
      "{}",
    );
    expect(sms).toMatch(/^HTTP\/1\.1 400 /);
    expect(sms).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/i);
    const smsBody = JSON.parse(sms.slice(sms.indexOf("\r\n\r\n") + 4));
    expect(smsBody).toMatchObject({ success: false, error: { code: "invalid_request" } });
    expect(smsBody.error.request_id).toEqual(expect.any(String));
    const resource = await rawRequest(
      port,
      `PUT /api/v2/webhooks HTTP/1.1\r\nHost: x\r\n${badHeader}\r\nContent-Length: 2`,
      "{}",
    );
    expect(JSON.parse(resource.slice(resource.indexOf("\r\n\r\n") + 4))).toMatchObject({
      status: "error",
      error: { code: "invalid_request" },
    });
    const old = await rawRequest(port, `GET /httpapi/send?x=1 HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b`);
    expect(old).toMatch(/^HTTP\/1\.1 400 /);
    expect(old).toMatch(/\r\nContent-Type: text\/plain; charset=utf-8\r\n/i);
    expect(old).not.toContain("statusCode");
    const huge = await rawRequest(port, `GET /api/v2/balance HTTP/1.1\r\nHost: x\r\nX-Padding: ${"a".repeat(20_000)}`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.slice(huge.indexOf("\r\n\r\n") + 4))).toMatchObject({
      success: false,
      error: { code: "invalid_request" },
    });
  });

  // A body is parsed before its request is authenticated (the key may be in it): 8 million
  // nested brackets within the 16 MiB limit held the event loop for 4–7 s, for every tenant.
  it("refuses JSON nested deeper than 64 levels before parsing it, without holding the event loop", async () => {
    const t = gateway();
    const deep = `${"[".repeat(8_000_000)}${"]".repeat(8_000_000)}`;
    // Fastify answers a body its parser refused with Connection: close: one connection each.
    const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
      const connection = await RawConnection.open(t.url);
      try {
        return await connection.request("POST", path, {
          headers: { "content-type": "application/json", ...headers },
          body,
          timeoutMs: 20_000,
        });
      } finally {
        connection.close();
      }
    };
    // The operator API checks its key before the body: only an operator's request is parsed.
    const operator = await buildAccount(t, { role: "operator" });
    const keys: Record<string, Record<string, string>> = { "/admin/api/accounts": keyOf(operator) };
    for (const [path, expected] of [
      ["/api/v2/sms/send", /"code":"invalid_request"/],
      ["/admin/api/accounts", /"code":"invalid_request"/],
      // Its own reader: no body, so no key (and its 64 KiB limit comes first).
      ["/voicecall/v1/jpost/send", /^-[16]$/],
    ] as const) {
      const before = process.cpuUsage();
      const answer = await post(path, deep, keys[path]);
      const used = process.cpuUsage(before);
      expect(answer.body, path).toMatch(expected);
      if (!path.startsWith("/voicecall")) expect(answer.body, path).toContain("more than 64 deep");
      // The CPU the gateway (in this process) spent on the request, sending and reading it
      // included: the parse it replaces took 4-7 s of it. Not the event loop's delay, which a
      // loaded machine (another process on the 2 cores) stretches without any work here.
      const cpuMs = (used.user + used.system) / 1_000;
      // 0.1-0.7 s here (the sending side's 16 MiB too); a slower machine has room below 2.5 s.
      expect(cpuMs, path).toBeLessThan(2_500);
    }
    // A large body (past the size the nesting is checked from) nested as calls are is read as before.
    const wide = JSON.stringify({
      sender_id: "SWBRD",
      message: OTP.message,
      recipients: Array.from({ length: 10_000 }, (_, n) => String(9_000_000_000 + n)),
    });
    const bulk = await post("/api/v2/sms/bulk", wide, keyOf(account));
    // Read to the end: 10,000 recipients reach the credit check (the account has 100 credits).
    expect(bulk.status, bulk.body).toBe(402);
    expect(JSON.parse(bulk.body).error.code).toBe("insufficient_credits");
  });

  it("refuses a lone surrogate escape in a JSON body, and takes a whole pair, on both engines alike", async () => {
    const t = gateway();
    const before = await balanceOf(t, account);
    const raw = (body: string) =>
      call(t, "POST", "/api/v2/sms/send", {
        headers: { ...keyOf(account), "content-type": "application/json" },
        body,
      });
    // Half a pair: neither engine can store it as sent (SQLite kept three U+FFFD, PostgreSQL one).
    const lone = await raw(
      '{"sender_id":"PROMOTIONAL","recipient":"9876543210","route":"P","unicode":true,"message":"a\\ud83db"}',
    );
    expect(lone.status, lone.text).toBe(400);
    expect(lone.body).toMatchObject({ success: false, error: { code: "invalid_request", field: "message" } });
    expect(lone.body.message).toContain("not valid Unicode");
    const inBulk = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: { ...keyOf(account), "content-type": "application/json" },
      body: '{"sender_id":"SWBRD","recipients":["9876543210","\\udc00"],"message":"Your OTP is 482913."}',
    });
    expect(inBulk.body.error).toMatchObject({ code: "invalid_request", field: "recipients" });
    expect(inBulk.body.message).toContain("recipients[1]");
    expect(await balanceOf(t, account)).toBe(before);
    // A whole pair, escaped, is the emoji it writes.
    const pair = await raw(
      '{"sender_id":"PROMOTIONAL","recipient":"9876543210","route":"P","unicode":true,"message":"a\\ud83d\\ude00b"}',
    );
    expect(pair.status, pair.text).toBe(200);
    const status = await call(t, "GET", `/api/v2/sms/status/${pair.body.data.message_id}`, { headers: keyOf(account) });
    expect(status.body.data.message).toBe("a\u{1F600}b");
  });

  it("names the field and the character a bulk send's empty list and a NUL in a name are refused for", async () => {
    const t = gateway();
    const empty = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: keyOf(account),
      json: { sender_id: "SWBRD", recipients: [], message: "x" },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ code: "invalid_recipient", field: "recipients" });
    const template = await call(t, "POST", "/api/v2/templates", {
      headers: keyOf(account),
      json: { name: "x\u0000y", content: "c" },
    });
    expect(template.body).toMatchObject({
      message: "A template name cannot contain U+0000.",
      error: { field: "name" },
    });
    const group = await call(t, "POST", "/api/v2/groups", {
      headers: keyOf(account),
      json: { name: "g", description: "d\u0000" },
    });
    expect(group.body).toMatchObject({
      message: "A group description cannot contain U+0000.",
      error: { field: "description" },
    });
  });

  it("answers 404 for an unknown path, 405 for a method the path does not take, whatever body it carries", async () => {
    const t = gateway();
    const unknown = await call(t, "POST", "/api/v2/no-such-thing", {
      headers: { ...keyOf(account), "content-type": "garbage" },
      body: "x",
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: "error", error: { code: "not_found" } });
    const method = await call(t, "DELETE", "/api/v2/balance", {
      headers: { ...keyOf(account), "content-type": "text/xml" },
      body: "<x/>",
    });
    // A path that exists answers a method it does not take 405, Allow naming its methods (decision 0186's addendum).
    expect([method.status, method.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    expect(method.body).toMatchObject({ success: false, error: { code: "method_not_allowed" } });
  });

  it("refuses credit amounts finer than the ledger keeps, on the transfer, the operator top-up and onboarding", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const admin = { authorization: `Bearer ${operator.apiKey}` };
    const sender = await buildAccount(t, { credits: { sms: 10 } });
    const receiver = await buildAccount(t, { credits: { sms: 0 } });
    const ledgerRows = async () =>
      Number(
        (
          await t.db.store.db
            .selectFrom("ledger_entries")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const rowsBefore = await ledgerRows();
    for (const amount of [0.0015, 1.0005, 0.0001, 1.5e-7, 2.0000001]) {
      const transfer = await call(t, "POST", "/api/v2/credits/transfer", {
        headers: keyOf(sender),
        json: { recipient_username: receiver.username, amount },
      });
      expect(transfer.status, `${amount} ${transfer.text}`).toBe(400);
      expect(transfer.body).toMatchObject({ status: "error", error: { code: "invalid_request", field: "amount" } });
      expect(transfer.body.message).toContain("at most 3 decimals");
      const topUp = await call(t, "POST", `/admin/api/accounts/${receiver.username}/credits`, {
        headers: admin,
        json: { wallet: "sms", amount },
      });
      expect(topUp.status, `${amount} ${topUp.text}`).toBe(400);
      expect(topUp.body.message).toContain("at most 3 decimals");
      const onboard = await call(t, "POST", "/admin/api/accounts", {
        headers: admin,
        json: {
          username: `fine_${String(amount).replace(/\W/g, "")}`,
          password: "a-long-password",
          credits: { sms: amount },
        },
      });
      expect(onboard.status, `${amount} ${onboard.text}`).toBe(400);
      expect(onboard.body.message).toContain("at most 3 decimals");
    }
    expect(await ledgerRows()).toBe(rowsBefore);
    expect(await balanceOf(t, sender)).toBe(10);
    expect(await balanceOf(t, receiver)).toBe(0);
    // Three decimals are kept exactly, whatever binary floating point makes of them.
    for (const amount of [0.001, 1.005, 2.675]) {
      const transfer = await call(t, "POST", "/api/v2/credits/transfer", {
        headers: keyOf(sender),
        json: { recipient_username: receiver.username, amount },
      });
      expect(transfer.status, transfer.text).toBe(200);
      expect(transfer.body.data.amount).toBe(amount);
    }
    expect(await balanceOf(t, receiver)).toBe(3.681);
    expect(await balanceOf(t, sender)).toBe(6.319);
  });
});
