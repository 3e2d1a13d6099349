// The same request through v2 (JSON), legacy (/httpapi/send) and XML (/xmlapi/send) gets the
// same decision, each in its own dialect: the rules live in one place (src/sms/policy.ts), so a
// family can never be stricter or looser than another. v2's error.legacy_code is exactly what
// the legacy and XML families answer.
import { DateTime } from "luxon";
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, operatorCall, pushsms, type TextResponse, xmlSend } from "../../helpers/legacy.js";
import { FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";

const ENTITY = "1101160000000000003";
const DND_NUMBER = "9800000021";

interface Fixture {
  plain: TestAccount;
  /** DLT scrubbing on, header SWBRD and ENTITY white-listed, "Your OTP is {#var#}." approved with ENTITY. */
  dlt: TestAccount;
  /** DLT scrubbing on, header SWBRD white-listed, a template approved without an entity ID. */
  noEntity: TestAccount;
  broke: TestAccount;
  tOnly: TestAccount;
  /** International enabled, no international credits. */
  intl: TestAccount;
  blocked: TestAccount;
}

interface Request {
  sender: string;
  recipient: string;
  message: string;
  /** Legacy route letter: T, P, PS, I, or anything else as given. */
  route: string;
}

interface Case {
  name: string;
  as: keyof Fixture;
  request: Partial<Request>;
  http: number;
  code: string;
  legacy: number;
}

const VALID: Request = { sender: "SWBRD", recipient: "9876543210", message: "Your OTP is 1234.", route: "T" };

const CASES: Case[] = [
  {
    name: "invalid number",
    as: "plain",
    request: { recipient: "98765" },
    http: 422,
    code: "invalid_recipient",
    legacy: -5,
  },
  {
    name: "number with letters",
    as: "plain",
    request: { recipient: "98765abcde" },
    http: 422,
    code: "invalid_recipient",
    legacy: -5,
  },
  { name: "no sender", as: "plain", request: { sender: "" }, http: 400, code: "missing_sender_id", legacy: -4 },
  { name: "no message", as: "plain", request: { message: "" }, http: 400, code: "missing_message", legacy: -6 },
  {
    name: "unknown sender",
    as: "plain",
    request: { sender: "NOSUCH" },
    http: 422,
    code: "invalid_sender_id",
    legacy: -10,
  },
  {
    name: "pending sender",
    as: "plain",
    request: { sender: "PENDNG" },
    http: 403,
    code: "route_not_approved",
    legacy: -19,
  },
  {
    name: "unicode without the flag",
    as: "plain",
    request: { message: "आपका OTP 1234 है" },
    http: 422,
    code: "unicode_not_allowed",
    legacy: -40,
  },
  {
    name: "more than 10 parts",
    as: "plain",
    request: { message: "a".repeat(1531) },
    http: 422,
    code: "message_too_long",
    legacy: -8,
  },
  {
    name: "DLT template mismatch",
    as: "dlt",
    request: { message: "Your code is 1234." },
    http: 422,
    code: "dlt_template_mismatch",
    legacy: -8,
  },
  {
    name: "DLT header not white-listed",
    as: "dlt",
    request: { sender: "NOHDR" },
    http: 422,
    code: "dlt_header_not_whitelisted",
    legacy: -32,
  },
  {
    name: "DLT template without entity, none given",
    as: "noEntity",
    request: {},
    http: 422,
    code: "dlt_entity_not_whitelisted",
    legacy: -31,
  },
  {
    name: "DND number on the promotional route",
    as: "plain",
    request: { route: "P", sender: "PROMOTIONAL", recipient: DND_NUMBER },
    http: 422,
    code: "dnd_blocked",
    legacy: -11,
  },
  { name: "no credits", as: "broke", request: {}, http: 402, code: "insufficient_credits", legacy: -12 },
  { name: "unknown route", as: "plain", request: { route: "X" }, http: 422, code: "invalid_route", legacy: -17 },
  {
    name: "PROMOTIONAL on route T",
    as: "plain",
    request: { sender: "PROMOTIONAL" },
    http: 422,
    code: "route_sender_mismatch",
    legacy: -18,
  },
  {
    name: "numeric sender on route T",
    as: "plain",
    request: { sender: "123456" },
    http: 422,
    code: "route_sender_mismatch",
    legacy: -18,
  },
  {
    name: "route not enabled",
    as: "tOnly",
    request: { route: "P" },
    http: 403,
    code: "route_not_approved",
    legacy: -19,
  },
  {
    name: "international not enabled",
    as: "plain",
    request: { route: "I", recipient: "+447911123456" },
    http: 403,
    code: "international_disabled",
    legacy: -20,
  },
  {
    name: "no international credit",
    as: "intl",
    request: { route: "I", recipient: "+447911123456" },
    http: 402,
    code: "insufficient_international_credits",
    legacy: -21,
  },
  {
    name: "Indian number on route I",
    as: "intl",
    request: { route: "I", recipient: "+919876543210" },
    http: 422,
    code: "invalid_recipient",
    legacy: -5,
  },
  {
    name: "promo sender not enabled",
    as: "plain",
    request: { route: "PS" },
    http: 403,
    code: "promo_sender_disabled",
    legacy: -22,
  },
  { name: "blocked account", as: "blocked", request: {}, http: 403, code: "account_inactive", legacy: -16 },
];

const V2_ROUTE: Record<string, string> = { T: "transactional", P: "promotional" };

interface Answers {
  v2: { status: number; code: string | undefined; legacy: number | undefined; body: string; retryAfter: string | null };
  legacy: TextResponse;
  xml: TextResponse;
}

/** The one request, sent once per family. */
async function sendEverywhere(t: TestGateway, account: TestAccount, request: Request): Promise<Answers> {
  const v2 = await call(t, "POST", "/api/v2/sms/send", {
    headers: keyOf(account),
    json: {
      sender_id: request.sender,
      recipient: request.recipient,
      message: request.message,
      route: V2_ROUTE[request.route] ?? request.route,
    },
  });
  const legacyAnswer = await legacy(t, "/httpapi/send", {
    ...credentials(account),
    sender_id: request.sender,
    phonenumber: request.recipient,
    message: request.message,
    route: request.route,
  });
  const xml = await xmlSend(
    t,
    pushsms(credentials(account), {
      sender: request.sender,
      route: request.route,
      messages: [{ pno: request.recipient, msg: request.message }],
    }),
  );
  return {
    v2: {
      status: v2.status,
      code: v2.body?.error?.code,
      legacy: v2.body?.error?.legacy_code,
      body: v2.text,
      retryAfter: v2.headers.get("retry-after"),
    },
    legacy: legacyAnswer,
    xml,
  };
}

describeEachEngine("the same decision on v2, legacy and XML", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });
  let f: Fixture;
  let operator: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    const op = (method: string, path: string, json?: unknown) => operatorCall(t, operator, method, path, json);
    const [plain, dlt, noEntity, broke, tOnly, intl, blocked] = await Promise.all([
      buildAccount(t),
      buildAccount(t, { dltScrubbing: true }),
      buildAccount(t, { dltScrubbing: true }),
      buildAccount(t, { credits: { sms: 0 } }),
      buildAccount(t),
      buildAccount(t, { credits: { sms: 100 } }),
      buildAccount(t),
    ]);
    await op("POST", `/accounts/${plain.username}/sender-ids`, { sender: "PENDNG" });
    for (const account of [dlt, noEntity]) {
      await op("POST", `/accounts/${account.username}/dlt/headers`, { header: "SWBRD" });
    }
    await op("POST", `/accounts/${dlt.username}/dlt/entities`, { entity_id: ENTITY });
    // Approved without its DLT header (decision 0151's opt-out): sends from it meet -32.
    await op("POST", `/accounts/${dlt.username}/sender-ids`, { sender: "NOHDR", approve: true, dlt_header: false });
    await op("POST", `/accounts/${dlt.username}/templates`, {
      name: "otp",
      content: "Your OTP is {#var#}.",
      entity_id: ENTITY,
      approve: true,
    });
    await op("POST", `/accounts/${noEntity.username}/templates`, {
      name: "otp",
      content: "Your OTP is {#var#}.",
      approve: true,
    });
    await op("PATCH", `/accounts/${tOnly.username}`, { routes: ["T"] });
    await op("PATCH", `/accounts/${intl.username}`, { international_enabled: true });
    await op("PATCH", `/accounts/${blocked.username}`, { status: "blocked" });
    await op("POST", "/dnd", { numbers: [DND_NUMBER] });
    f = { plain, dlt, noEntity, broke, tOnly, intl, blocked };
  });

  it("refuses each bad request in all three families with the same code", async () => {
    const t = gateway();
    for (const c of CASES) {
      const answers = await sendEverywhere(t, f[c.as], { ...VALID, ...c.request });
      expect.soft(answers.v2, `${c.name} (v2)`).toMatchObject({ status: c.http, code: c.code, legacy: c.legacy });
      expect.soft({ status: answers.legacy.status, text: answers.legacy.text }, `${c.name} (legacy)`).toEqual({
        status: 200,
        text: String(c.legacy),
      });
      expect.soft({ status: answers.xml.status, text: answers.xml.text }, `${c.name} (XML)`).toEqual({
        status: 200,
        text: String(c.legacy),
      });
      // The point of the table: one decision, three dialects.
      expect.soft(answers.legacy.text, c.name).toBe(String(answers.v2.legacy));
      expect.soft(answers.xml.text, c.name).toBe(answers.legacy.text);
    }
    for (const [who, account] of Object.entries(f)) {
      const stored = await t.db.store.db
        .selectFrom("messages")
        .select("id")
        .where("account_id", "=", account.id)
        .execute();
      expect(stored, who).toEqual([]);
    }
  });

  it("accepts the same good request in all three families", async () => {
    const t = gateway();
    for (const [who, request] of [
      ["plain", VALID],
      ["plain", { ...VALID, route: "P", sender: "PROMOTIONAL", message: "Sale today" }],
      ["dlt", VALID],
    ] as const) {
      const account = f[who];
      const answers = await sendEverywhere(t, account, request);
      expect(answers.v2.status, answers.v2.body).toBe(200);
      expect(answers.legacy.text).toMatch(new RegExp(`^${account.id}_\\d{8}_\\d+$`));
      expect(answers.xml.text).toMatch(new RegExp(`^${account.id}_\\d{8}_\\d+$`));
    }
    const dltRows = await t.db.store.db
      .selectFrom("messages")
      .select(["template_id", "dlt_entity_id"])
      .where("account_id", "=", f.dlt.id)
      .execute();
    expect(dltRows).toHaveLength(3);
    for (const row of dltRows) expect(row).toEqual({ template_id: expect.any(Number), dlt_entity_id: ENTITY });
  });

  it("counts every family against one flood limit and refuses each past it with -13", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await operatorCall(t, operator, "PATCH", `/accounts/${account.username}`, { flood_limit: 3 });
    const answers = await sendEverywhere(t, account, VALID);
    expect(answers.v2.status).toBe(200);
    expect(answers.legacy.text).toMatch(/^\d+_\d{8}_\d+$/);
    expect(answers.xml.text).toMatch(/^\d+_\d{8}_\d+$/);
    const over = await sendEverywhere(t, account, VALID);
    expect(over.v2).toMatchObject({ status: 429, code: "flood_limit_exceeded", legacy: -13 });
    // A 429 says when to retry: when the day ends in the account's zone (Asia/Kolkata) and the count starts again.
    const midnight = DateTime.now().setZone("Asia/Kolkata").startOf("day").plus({ days: 1 }).toMillis();
    const seconds = Number(over.v2.retryAfter);
    expect(Math.abs(seconds - (midnight - Date.now()) / 1000)).toBeLessThan(60);
    expect(JSON.parse(over.v2.body).error.retry_after).toBe(seconds);
    expect({ status: over.legacy.status, text: over.legacy.text }).toEqual({ status: 200, text: "-13" });
    expect({ status: over.xml.status, text: over.xml.text }).toEqual({ status: 200, text: "-13" });
  });
});
