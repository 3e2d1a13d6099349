// Every negative code of the spec's legacy table, produced by a real HTTP request: each refusal
// on both legacy prefixes, GET and POST (form). The rules are shared with v2 and XML
// (cross-family.test.ts); here the legacy dialect itself is pinned: HTTP 200 with the code as
// plain text (429 when throttled), -3 never, -14 only for a real internal error.
import { DateTime } from "luxon";
import { beforeAll, expect, it } from "vitest";
import { encodeUtf16BeHex } from "../../../src/channels/sms/ucs2-hex.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import {
  credentials,
  expectBroadcastId,
  legacy,
  operatorCall,
  type Params,
  sendParams,
  type TextResponse,
  xmlSend,
} from "../../helpers/legacy.js";
import { FAST_SIMULATOR, keyOf, sendSms, statusOf } from "../../helpers/sms.js";

const ENTITY = "1101160000000000001";
/** Entity IDs are letters and digits, white-listed upper-case: a send may give them in any case. */
const LETTERED_ENTITY = "AcmeEntity01";
const LETTERED_TEMPLATE = "1107160000000000002";
const OTP_TEMPLATE = "Your OTP is {#var#}. Do not share it.";
const OTP_TEXT = "Your OTP is 482913. Do not share it.";
const UK_MOBILE = "+447911123456";
const US_NUMBER = "+12015550123";

const SENDS = [
  ["GET", "/httpapi/send"],
  ["POST", "/httpapi/send"],
  ["GET", "/api/secure_api/httpapi/send"],
  ["POST", "/api/secure_api/httpapi/send"],
] as const;

interface Fixture {
  operator: TestAccount;
  /** Routes T and P, sender SWBRD approved and PENDNG pending, no DLT scrubbing. */
  plain: TestAccount;
  /** Only ever sent a wrong password (its failed logins must not lock an account others use). */
  guessed: TestAccount;
  /** DLT scrubbing on: header SWBRD and ENTITY white-listed, OTP_TEMPLATE approved; NOHDR is an approved sender but no DLT header. */
  dlt: TestAccount;
  broke: TestAccount;
  blocked: TestAccount;
  inactive: TestAccount;
  /** Route T only. */
  tOnly: TestAccount;
  /** International enabled, no international credits. */
  intl: TestAccount;
}

type Who = Exclude<keyof Fixture, "operator">;

interface Refusal {
  name: string;
  code: number;
  as?: Who;
  /** Changes to a valid transactional send of `as`; undefined removes a parameter. */
  params: Params;
}

const REFUSALS: Refusal[] = [
  { name: "no username, password or key", code: -1, params: { username: undefined, password: undefined } },
  { name: "empty username and password", code: -1, params: { username: "", password: "" } },
  { name: "password without a username", code: -1, params: { username: undefined } },
  {
    name: "empty api_key and no username",
    code: -1,
    params: { username: undefined, password: undefined, api_key: "" },
  },
  { name: "no password", code: -2, params: { password: undefined } },
  { name: "empty password", code: -2, params: { password: "" } },
  { name: "wrong password", code: -7, as: "guessed", params: { password: "not-the-password" } },
  { name: "unknown username", code: -7, params: { username: "nobody_here" } },
  {
    name: "wrong api_key",
    code: -7,
    params: { username: undefined, password: undefined, api_key: "sb_not-a-real-key" },
  },
  { name: "wrong apikey", code: -7, params: { username: undefined, password: undefined, apikey: "sb_not-a-real-key" } },
  { name: "no sender_id", code: -4, params: { sender_id: undefined } },
  { name: "blank sender_id", code: -4, params: { sender_id: "   " } },
  { name: "9-digit number", code: -5, params: { phonenumber: "987654321" } },
  { name: "11-digit number", code: -5, params: { phonenumber: "98765432101" } },
  { name: "number with letters", code: -5, params: { phonenumber: "98765abcde" } },
  { name: "letters only", code: -5, params: { phonenumber: "phone" } },
  { name: "a list of only bad numbers", code: -5, params: { phonenumber: "987654321,12345,abc" } },
  { name: "no phonenumber", code: -5, params: { phonenumber: undefined } },
  { name: "empty phonenumber", code: -5, params: { phonenumber: "" } },
  { name: "Indian number on route I", code: -5, as: "intl", params: { route: "I", phonenumber: "+919876543210" } },
  { name: "no message", code: -6, params: { message: undefined } },
  { name: "empty message", code: -6, params: { message: "" } },
  { name: "blank message", code: -6, params: { message: "   " } },
  { name: "transactional text matching no template", code: -8, as: "dlt", params: { message: "Hello there" } },
  { name: "more than 10 parts", code: -8, params: { message: "a".repeat(1531) } },
  { name: "unknown sender", code: -10, params: { sender_id: "NOSUCH" } },
  { name: "no credits", code: -12, as: "broke", params: {} },
  { name: "blocked account", code: -16, as: "blocked", params: {} },
  { name: "inactive account", code: -16, as: "inactive", params: {} },
  { name: "no route", code: -17, params: { route: undefined } },
  { name: "empty route", code: -17, params: { route: "" } },
  { name: 'route "X"', code: -17, params: { route: "X" } },
  { name: 'route "TT"', code: -17, params: { route: "TT" } },
  { name: "PROMOTIONAL on route T", code: -18, params: { sender_id: "PROMOTIONAL" } },
  { name: "numeric sender on route T", code: -18, params: { sender_id: "123456" } },
  { name: "route P not enabled", code: -19, as: "tOnly", params: { route: "P" } },
  { name: "pending sender ID", code: -19, params: { sender_id: "PENDNG" } },
  // Route V is a voice call (test/channels/voice/legacy-route-v.test.ts): SWBRD is no caller number.
  { name: "route V from a sender that is no caller number", code: -10, params: { route: "V" } },
  { name: "route I, international not enabled", code: -20, params: { route: "I", phonenumber: UK_MOBILE } },
  { name: "route I, no international credit", code: -21, as: "intl", params: { route: "I", phonenumber: UK_MOBILE } },
  { name: "route PS, promo sender not enabled", code: -22, params: { route: "PS" } },
  {
    name: "DLT entity not white-listed",
    code: -31,
    as: "dlt",
    params: { message: OTP_TEXT, dlt_entity_id: "1101169999999999999" },
  },
  { name: "DLT header not white-listed", code: -32, as: "dlt", params: { message: OTP_TEXT, sender_id: "NOHDR" } },
  { name: "Hindi without type=2", code: -40, params: { message: "नमस्ते दुनिया" } },
  { name: "rupee sign without type=2", code: -40, params: { message: "Pay ₹100 today" } },
  { name: "type=2 with non-hex digits", code: -40, params: { type: "2", message: "09Z8" } },
  { name: "type=2 with an odd number of digits", code: -40, params: { type: "2", message: "092" } },
  { name: "type=2 with a lone surrogate", code: -40, params: { type: "2", message: "D800" } },
  { name: "type=2 with plain text", code: -40, params: { type: "2", message: "hello" } },
];

/** A valid transactional send for `account`, with `changes` applied (undefined removes one). */

/** Every answer of this file: none may be -3 (reserved), -14 or an HTTP 5xx. */
const answers: { what: string; response: TextResponse }[] = [];

async function send(
  t: TestGateway,
  params: Params,
  method: "GET" | "POST" = "GET",
  path = "/httpapi/send",
): Promise<TextResponse> {
  const response = await legacy(t, path, params, method);
  answers.push({ what: `${method} ${path} ${JSON.stringify(params)}`, response });
  return response;
}

function expectCode(response: TextResponse, code: number, what = ""): void {
  expect({ status: response.status, text: response.text }, what).toEqual({ status: 200, text: String(code) });
  expect(response.headers.get("content-type"), what).toMatch(/^text\/plain/);
}

async function messagesOf(t: TestGateway, account: TestAccount) {
  return t.db.store.db
    .selectFrom("messages")
    .select(["recipient", "body", "encoding", "route", "wallet", "status", "due_at"])
    .where("account_id", "=", account.id)
    .orderBy("recipient")
    .execute();
}

describeEachEngine("legacy send: every code of the legacy table", (engine) => {
  // The legacy throttle is off here: the table sends far more than 100 requests a second.
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });
  let f: Fixture;

  beforeAll(async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const op = (method: string, path: string, json?: unknown) => operatorCall(t, operator, method, path, json);
    const [plain, guessed, dlt, broke, blocked, inactive, tOnly, intl] = await Promise.all([
      buildAccount(t),
      buildAccount(t),
      buildAccount(t, { dltScrubbing: true }),
      buildAccount(t, { credits: { sms: 0 } }),
      buildAccount(t),
      buildAccount(t),
      buildAccount(t),
      buildAccount(t, { credits: { sms: 100, international: 0 } }),
    ]);
    await op("POST", `/accounts/${plain.username}/sender-ids`, { sender: "PENDNG" });
    // Approved without its DLT header (decision 0151's opt-out): sends from it meet -32.
    await op("POST", `/accounts/${dlt.username}/sender-ids`, { sender: "NOHDR", approve: true, dlt_header: false });
    await op("POST", `/accounts/${dlt.username}/dlt/headers`, { header: "SWBRD" });
    await op("POST", `/accounts/${dlt.username}/dlt/entities`, { entity_id: ENTITY });
    await op("POST", `/accounts/${dlt.username}/dlt/entities`, { entity_id: LETTERED_ENTITY });
    await op("POST", `/accounts/${dlt.username}/templates`, {
      name: "otp",
      content: OTP_TEMPLATE,
      dlt_template_id: "1107160000000000001",
      entity_id: ENTITY,
      approve: true,
    });
    // The same text registered under the lettered entity: a template is sent under its own entity.
    await op("POST", `/accounts/${dlt.username}/templates`, {
      name: "otp-lettered",
      content: OTP_TEMPLATE,
      dlt_template_id: LETTERED_TEMPLATE,
      entity_id: LETTERED_ENTITY.toUpperCase(),
      approve: true,
    });
    await op("PATCH", `/accounts/${blocked.username}`, { status: "blocked" });
    await op("PATCH", `/accounts/${inactive.username}`, { status: "inactive" });
    await op("PATCH", `/accounts/${tOnly.username}`, { routes: ["T"] });
    await op("PATCH", `/accounts/${intl.username}`, { international_enabled: true });
    f = { operator, plain, guessed, dlt, broke, blocked, inactive, tOnly, intl };
  });

  it("answers each refusal with its code, on both prefixes, GET and POST, and stores and charges nothing", async () => {
    const t = gateway();
    for (const refusal of REFUSALS) {
      const params = sendParams(f[refusal.as ?? "plain"], refusal.params);
      for (const [method, path] of SENDS) {
        const response = await send(t, params, method, path);
        expect.soft({ status: response.status, text: response.text }, `${refusal.name}: ${method} ${path}`).toEqual({
          status: 200,
          text: String(refusal.code),
        });
      }
    }
    // Every code of the table except -3 (reserved), -9 (XML), -11, -13, -14 and -15 (tests below).
    const walked = new Set(REFUSALS.map((r) => r.code));
    for (const code of [-1, -2, -4, -5, -6, -7, -8, -10, -12, -16, -17, -18, -19, -20, -21, -22, -31, -32, -40]) {
      expect(walked).toContain(code);
    }
    for (const who of ["plain", "dlt", "broke", "tOnly", "intl"] as const) {
      expect(await messagesOf(t, f[who]), who).toEqual([]);
    }
    expect((await legacy(t, "/api/getcredits", credentials(f.plain))).text).toBe("1000");
    expect((await legacy(t, "/api/getcredits", credentials(f.broke))).text).toBe("0");
  });

  it("sends what passes every rule, answering a broadcast id on both prefixes, GET and POST", async () => {
    const t = gateway();
    for (const [method, path] of SENDS) {
      expectBroadcastId(await send(t, sendParams(f.plain), method, path), f.plain, `${method} ${path}`);
      // DLT scrubbing on: the text matches the approved template, header and entity are white-listed.
      expectBroadcastId(await send(t, sendParams(f.dlt, { message: OTP_TEXT }), method, path), f.dlt);
      expectBroadcastId(
        await send(t, sendParams(f.dlt, { message: OTP_TEXT, dlt_entity_id: ENTITY }), method, path),
        f.dlt,
      );
      // An API key instead of username and password, under either name.
      const { username: _u, password: _p, ...byKey } = sendParams(f.plain);
      expectBroadcastId(await send(t, { ...byKey, api_key: f.plain.apiKey }, method, path), f.plain);
      expectBroadcastId(await send(t, { ...byKey, apikey: f.plain.apiKey }, method, path), f.plain);
      // Route P with the generic PROMOTIONAL header.
      expectBroadcastId(
        await send(t, sendParams(f.plain, { route: "p", sender_id: "PROMOTIONAL" }), method, path),
        f.plain,
      );
    }
    const lettered = await send(
      t,
      sendParams(f.dlt, { message: OTP_TEXT, dlt_entity_id: ` ${LETTERED_ENTITY.toLowerCase()} ` }),
    );
    expectBroadcastId(lettered, f.dlt, "entity ID in another case");
    const rows = await t.db.store.db
      .selectFrom("messages")
      .select(["broadcast_id", "template_id", "dlt_template_id", "dlt_entity_id"])
      .where("account_id", "=", f.dlt.id)
      .execute();
    expect(rows).toHaveLength(9);
    for (const row of rows) {
      const isLettered = row.broadcast_id === lettered.text;
      expect(row).toMatchObject({
        template_id: expect.any(Number),
        dlt_template_id: isLettered ? LETTERED_TEMPLATE : "1107160000000000001",
      });
      expect(row.dlt_entity_id).toBe(isLettered ? LETTERED_ENTITY.toUpperCase() : ENTITY);
    }
  });

  it("-5 only when no number is valid: a list with some bad numbers sends to the good ones", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const id = expectBroadcastId(
      await send(t, sendParams(account, { phonenumber: "987654321,9876543210,98765abcde, +91 91234 56789,0" })),
      account,
    );
    const status = await statusOf(t, account, id);
    expect(status.status).toBe(200);
    expect(status.body.data.total).toBe(2);
    expect(status.body.data.messages.map((m: { mobile: string }) => m.mobile).sort()).toEqual([
      "9123456789",
      "9876543210",
    ]);
    expect((await legacy(t, "/api/getcredits", credentials(account))).text).toBe("998");
  });

  it("-11 on promotional routes when every number is on the DND registry; DND numbers of a list are left out", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await operatorCall(t, f.operator, "PATCH", `/accounts/${account.username}`, { promo_sender_enabled: true });
    await operatorCall(t, f.operator, "POST", "/dnd", { numbers: ["9800000011", "+919800000012"] });
    const promo = (phonenumber: string, route = "P") =>
      sendParams(account, { route, sender_id: route === "P" ? "PROMOTIONAL" : "SWBRD", phonenumber });

    for (const [method, path] of SENDS) {
      expectCode(await send(t, promo("9800000011"), method, path), -11, `${method} ${path}`);
      expectCode(await send(t, promo("9800000011,09800000012"), method, path), -11, `${method} ${path}`);
      expectCode(await send(t, promo("9800000012", "PS"), method, path), -11, `${method} ${path}`);
    }
    // Bad numbers and DND numbers together: still nothing deliverable.
    expectCode(await send(t, promo("12345,9800000011")), -11);
    expect(await messagesOf(t, account)).toEqual([]);

    const id = expectBroadcastId(await send(t, promo("9800000011,9800000099,9800000012")), account);
    const status = await statusOf(t, account, id);
    expect(status.body.data.messages.map((m: { mobile: string }) => m.mobile)).toEqual(["9800000099"]);
    // DND does not apply to transactional traffic (OTPs, alerts).
    expectBroadcastId(await send(t, sendParams(account, { phonenumber: "9800000011" })), account);
  });

  it("-13 once the account's daily flood limit is reached, shared with v2", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await operatorCall(t, f.operator, "PATCH", `/accounts/${account.username}`, { flood_limit: 2 });
    // Three numbers do not fit a limit of two: the whole send is refused.
    expectCode(await send(t, sendParams(account, { phonenumber: "9876543210,9876543211,9876543212" })), -13);
    expectBroadcastId(await send(t, sendParams(account)), account);
    expectBroadcastId(await send(t, sendParams(account), "POST", "/api/secure_api/httpapi/send"), account);
    for (const [method, path] of SENDS) expectCode(await send(t, sendParams(account), method, path), -13);
    const v2 = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "hello" });
    expect(v2.status).toBe(429);
    expect(v2.body.error).toMatchObject({ code: "flood_limit_exceeded", legacy_code: -13 });
    expect(await messagesOf(t, account)).toHaveLength(2);
    expect((await legacy(t, "/api/getcredits", credentials(account))).text).toBe("998");
    // The limit is the account's: another account still sends.
    expectBroadcastId(await send(t, sendParams(f.plain)), f.plain);
  });

  it("-15 for a delivery report of an unknown broadcast id or phone number", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const id = expectBroadcastId(await send(t, sendParams(account)), account);
    for (const prefix of ["/httpapi", "/api/secure_api/httpapi"]) {
      for (const [broadcastid, phonenumber] of [
        [`${account.id}_20200101_000001`, "9876543210"],
        [id, "9876543219"],
        [id, ""],
        ["", "9876543210"],
      ]) {
        const response = await legacy(t, `${prefix}/dlr`, { ...credentials(account), broadcastid, phonenumber });
        answers.push({ what: `dlr ${broadcastid} ${phonenumber}`, response });
        expectCode(response, -15, `${prefix} ${broadcastid} ${phonenumber}`);
      }
    }
  });

  it("-9 for malformed XML on /xmlapi/send", async () => {
    const t = gateway();
    for (const xml of [
      "<pushsms><username>u</username>",
      "not xml at all",
      "",
      undefined,
      "<sms><username>u</username></sms>",
      '<?xml version="1.0"?><!DOCTYPE pushsms [<!ENTITY x "y">]><pushsms><username>&x;</username></pushsms>',
    ]) {
      const response = await xmlSend(t, xml);
      answers.push({ what: `xml ${xml}`, response });
      expectCode(response, -9, String(xml));
    }
  });

  it("accepts type=2 UTF-16BE hex and stores the text decoded, as UCS-2", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    for (const [hex, text] of [
      [encodeUtf16BeHex("नमस्ते"), "नमस्ते"],
      ["0928092e0938094d09240947", "नमस्ते"],
      ["0928 092E 0938 094D 0924 0947", "नमस्ते"],
      [encodeUtf16BeHex("Hi 😀"), "Hi 😀"],
      [encodeUtf16BeHex("Hello"), "Hello"],
    ] as const) {
      const id = expectBroadcastId(await send(t, sendParams(account, { type: "2", message: hex })), account, hex);
      const status = await statusOf(t, account, id);
      expect(status.body.data.messages[0], hex).toMatchObject({ encoding: "ucs2", segments: 1, mobile: "9876543210" });
      const mis = await legacy(t, "/httpapi/mis", { ...credentials(account), limit: "1" });
      expect(JSON.parse(mis.text)[0], hex).toMatchObject({ broadcast_id: id, message: text });
    }
  });

  it("accepts URL-encoded Unicode in text (hybrid mode): UCS-2 only when the text needs it", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    for (const method of ["GET", "POST"] as const) {
      await send(t, sendParams(account, { message: undefined, text: "नमस्ते, आपका OTP 1234 है" }), method);
      await send(t, sendParams(account, { message: undefined, text: "Plain GSM text @ £5" }), method);
    }
    const stored = await messagesOf(t, account);
    expect(stored.map((m) => [m.body, m.encoding]).sort()).toEqual([
      ["Plain GSM text @ £5", "gsm7"],
      ["Plain GSM text @ £5", "gsm7"],
      ["नमस्ते, आपका OTP 1234 है", "ucs2"],
      ["नमस्ते, आपका OTP 1234 है", "ucs2"],
    ]);
    // The percent-encoding itself, exactly as a client URL carries it.
    const raw = await fetch(
      `${t.url}/httpapi/send?username=${account.username}&password=${encodeURIComponent(account.password)}` +
        "&sender_id=SWBRD&route=T&phonenumber=9876543210&text=%E0%A4%A8%E0%A4%AE%E0%A4%B8%E0%A5%8D%E0%A4%A4%E0%A5%87",
    );
    expect(await raw.text()).toMatch(/^\d+_\d{8}_\d+$/);
    expect((await messagesOf(t, account)).filter((m) => m.body === "नमस्ते")).toHaveLength(1);
  });

  it("sends route I to valid international numbers, charged to the international wallet", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100, international: 10 } });
    await operatorCall(t, f.operator, "PATCH", `/accounts/${account.username}`, { international_enabled: true });
    const id = expectBroadcastId(
      await send(t, sendParams(account, { route: "I", phonenumber: `${UK_MOBILE},${US_NUMBER},+919876543210` })),
      account,
    );
    const stored = await messagesOf(t, account);
    expect(stored.map((m) => [m.recipient, m.route, m.wallet])).toEqual([
      ["12015550123", "international", "international"],
      ["447911123456", "international", "international"],
    ]);
    expect((await statusOf(t, account, id)).body.data.total).toBe(2);
    const summary = await operatorCall(t, f.operator, "GET", `/accounts/${account.username}`);
    expect(summary.body.data.balances).toMatchObject({ sms: 100, international: 8 });
    expect((await legacy(t, "/api/getcredits", credentials(account))).text).toBe("100");
  });

  it("holds a send with a future schedule (account time zone) and sends a past one now", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const at = DateTime.now().setZone("Asia/Kolkata").plus({ days: 1 }).startOf("second");
    const id = expectBroadcastId(
      await send(t, sendParams(account, { schedule: at.toFormat("yyyy-MM-dd HH:mm:ss") }), "POST"),
      account,
    );
    const status = await statusOf(t, account, id);
    expect(status.body.data.messages[0].status).toBe("scheduled");
    expect(new Date(status.body.data.messages[0].scheduled_at).getTime()).toBe(at.toMillis());
    const past = DateTime.now().setZone("Asia/Kolkata").minus({ hours: 2 }).toFormat("yyyy-MM-dd HH:mm:ss");
    const now = expectBroadcastId(await send(t, sendParams(account, { schedule: past })), account);
    expect((await statusOf(t, account, now)).body.data.messages[0].status).not.toBe("scheduled");
  });

  it("never answered -3 (reserved), -14 or an HTTP 5xx in this file", () => {
    expect(answers.length).toBeGreaterThan(REFUSALS.length * SENDS.length);
    for (const { what, response } of answers) {
      expect(response.status, what).toBeLessThan(500);
      expect(response.text, what).not.toBe("-3");
      expect(response.text, what).not.toBe("-14");
    }
  });
});

describeEachEngine("legacy send: throttle and login lock", (engine) => {
  const gateway = useTestGateway(engine, {
    env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "3", LOGIN_LOCK_THRESHOLD: "3" },
  });

  it("-13 with HTTP 429 and Retry-After past the legacy throttle, per account, separate from v2", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const other = await buildAccount(t);
    const { username: _u, password: _p, ...byKey } = sendParams(account);
    const started = performance.now();
    const burst = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        legacy(t, i % 2 ? "/httpapi/send" : "/api/secure_api/httpapi/send", { ...byKey, api_key: account.apiKey }),
      ),
    );
    const elapsed = performance.now() - started;
    const throttled = burst.filter((r) => r.status === 429);
    const accepted = burst.filter((r) => r.status === 200);
    expect(throttled.length + accepted.length).toBe(8);
    for (const response of accepted) expectBroadcastId(response, account);
    for (const response of throttled) {
      expect(response.text).toBe("-13");
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // All eight fell into one one-second window unless the machine stalled for a second.
    if (elapsed < 900) expect(accepted).toHaveLength(3);
    expect(throttled.length).toBeGreaterThanOrEqual(1);

    // Other legacy calls of the same account are throttled with it; another account and v2 are not.
    const credits = await legacy(t, "/api/getcredits", { api_key: account.apiKey });
    expect({ status: credits.status, text: credits.text }).toEqual({ status: 429, text: "-13" });
    expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(other)), other);
    const v2 = await call(t, "POST", "/api/v2/sms/send", {
      headers: keyOf(account),
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "hello" },
    });
    expect(v2.status).toBe(200);

    // The throttle's one-second window ends (the behaviour under test): the account sends again.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(account)), account);
  });

  it("-16 after LOGIN_LOCK_THRESHOLD failed logins in a row, even with the right password, until unlocked", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);
    const wrong = sendParams(account, { password: "a-wrong-guess" });
    for (let i = 0; i < 3; i++) expectCode(await legacy(t, "/httpapi/send", wrong, i % 2 ? "POST" : "GET"), -7);
    for (const [method, path] of SENDS) {
      expectCode(await legacy(t, path, sendParams(account), method), -16, `${method} ${path}`);
      expectCode(await legacy(t, path, wrong, method), -16, `${method} ${path}`);
    }
    expectCode(await legacy(t, "/api/getcredits", credentials(account)), -16);
    expect(await messagesOf(t, account)).toEqual([]);

    await operatorCall(t, operator, "PATCH", `/accounts/${account.username}`, { unlock: true });
    expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(account)), account);
    // A success starts the count again: two more failures do not lock.
    for (let i = 0; i < 2; i++) expectCode(await legacy(t, "/httpapi/send", wrong), -7);
    expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(account)), account);
  });
});
