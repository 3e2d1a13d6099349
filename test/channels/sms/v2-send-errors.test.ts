import { expect, it } from "vitest";
import { addSenderId } from "../../../src/domain/accounts/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import {
  buildAccount,
  call,
  type JsonResponse,
  type TestAccount,
  type TestGateway,
  useTestGateway,
} from "../../helpers/gateway.js";
import { balanceOf, FAST_SIMULATOR, keyOf, sendSms } from "../../helpers/sms.js";

const VALID = { sender_id: "SWBRD", recipient: "9876543210", message: "hello" };

function without(field: keyof typeof VALID): Record<string, unknown> {
  const { [field]: _dropped, ...rest } = VALID;
  return rest;
}

interface Refusal {
  name: string;
  body: unknown;
  status: number;
  code: string;
  /** The catalogue's legacy number; undefined where the catalogue has none (the answer must omit it). */
  legacy?: number;
  /** A word the human message must contain (e.g. the offending field). */
  mentions?: string;
}

const REFUSALS: Refusal[] = [
  { name: "missing sender_id", body: without("sender_id"), status: 400, code: "missing_sender_id", legacy: -4 },
  { name: "blank sender_id", body: { ...VALID, sender_id: "  " }, status: 400, code: "missing_sender_id", legacy: -4 },
  { name: "missing message", body: without("message"), status: 400, code: "missing_message", legacy: -6 },
  { name: "empty message", body: { ...VALID, message: "" }, status: 400, code: "missing_message", legacy: -6 },
  { name: "blank message", body: { ...VALID, message: " \n " }, status: 400, code: "missing_message", legacy: -6 },
  // No number at all is a missing field (400, as a missing sender ID or message); a wrong one is 422.
  { name: "missing recipient", body: without("recipient"), status: 400, code: "invalid_recipient", legacy: -5 },
  { name: "empty recipient", body: { ...VALID, recipient: "" }, status: 400, code: "invalid_recipient", legacy: -5 },
  { name: "blank recipient", body: { ...VALID, recipient: "  " }, status: 400, code: "invalid_recipient", legacy: -5 },
  ...["987654321", "98765432101", "919876543", "+9198765432", "98765abcde", "phone", "+1 9876543210"].map(
    (recipient) => ({
      name: `recipient "${recipient}"`,
      body: { ...VALID, recipient },
      status: 422,
      code: "invalid_recipient",
      legacy: -5,
      mentions: recipient,
    }),
  ),
  ...["1876543210", "2876543210", "3876543210", "4876543210", "5876543210", "0876543210"].map((recipient) => ({
    name: `recipient starting ${recipient[0]}`,
    body: { ...VALID, recipient },
    status: 422,
    code: "invalid_recipient",
    legacy: -5,
  })),
  {
    name: "unknown sender",
    body: { ...VALID, sender_id: "NOSUCH" },
    status: 422,
    code: "invalid_sender_id",
    legacy: -10,
    mentions: "NOSUCH",
  },
  {
    name: "pending sender",
    body: { ...VALID, sender_id: "PENDNG" },
    status: 403,
    code: "route_not_approved",
    legacy: -19,
    mentions: "PENDNG",
  },
  {
    name: "more than 10 segments",
    body: { ...VALID, message: "a".repeat(1531) },
    status: 422,
    code: "message_too_long",
    legacy: -8,
  },
  { name: "unknown route", body: { ...VALID, route: "bulk" }, status: 422, code: "invalid_route", legacy: -17 },
  // A known route that is not an SMS route: refused as a route the account may not use (rule 5).
  {
    name: "route V (voice)",
    body: { ...VALID, route: "V" },
    status: 403,
    code: "route_not_approved",
    legacy: -19,
    mentions: "voice",
  },
  {
    name: "recipient as a number",
    body: { ...VALID, recipient: 9876543210 },
    status: 400,
    code: "invalid_request",
    mentions: "recipient",
  },
  {
    name: "unicode as a string",
    body: { ...VALID, unicode: "yes" },
    status: 400,
    code: "invalid_request",
    mentions: "unicode",
  },
  { name: "flash as 1", body: { ...VALID, flash: 1 }, status: 400, code: "invalid_request", mentions: "flash" },
  {
    name: "message as an array",
    body: { ...VALID, message: ["hello"] },
    status: 400,
    code: "invalid_request",
    mentions: "message",
  },
  {
    name: "unknown extra field",
    body: { ...VALID, priority: "high" },
    status: 400,
    code: "invalid_request",
    mentions: "priority",
  },
  ...["tomorrow", "2026-13-01 10:00:00", "2026-02-30 10:00:00", "2026-01-01 10:60:00", "01-02-2026 10:00:00"].map(
    (schedule_at) => ({
      name: `schedule_at "${schedule_at}"`,
      body: { ...VALID, schedule_at },
      status: 400,
      code: "invalid_schedule",
      legacy: -8,
      mentions: schedule_at,
    }),
  ),
  // PostgreSQL text cannot hold U+0000: each field that reaches the database must refuse it first.
  {
    name: "NUL in sender_id",
    body: { ...VALID, sender_id: "SWB\u0000" },
    status: 422,
    code: "invalid_sender_id",
    legacy: -10,
  },
  {
    name: "NUL in a unicode message",
    body: { ...VALID, message: "a\u0000b", unicode: true },
    status: 422,
    code: "content_not_allowed",
    legacy: -8,
  },
  {
    name: "NUL in dlt_entity_id",
    body: { ...VALID, dlt_entity_id: "1\u0000" },
    status: 400,
    code: "invalid_request",
    mentions: "DLT entity ID",
  },
  {
    name: "NUL in dlt_template_id",
    body: { ...VALID, dlt_template_id: "1\u0000" },
    status: 400,
    code: "invalid_request",
    mentions: "DLT template ID",
  },
  {
    name: "NUL in recipient",
    body: { ...VALID, recipient: "98765\u000043210" },
    status: 422,
    code: "invalid_recipient",
    legacy: -5,
  },
  { name: "NUL in route", body: { ...VALID, route: "t\u0000" }, status: 422, code: "invalid_route", legacy: -17 },
  {
    name: "NUL in schedule_at",
    body: { ...VALID, schedule_at: "2030-01-01 10:00:00\u0000" },
    status: 400,
    code: "invalid_schedule",
    legacy: -8,
  },
  { name: "JSON array body", body: [VALID], status: 400, code: "invalid_request" },
  { name: "JSON string body", body: "hello", status: 400, code: "invalid_request" },
  { name: "JSON number body", body: 42, status: 400, code: "invalid_request" },
  { name: "JSON null body", body: null, status: 400, code: "invalid_request" },
];

function expectRefusal(response: JsonResponse, status: number, code: string, legacy?: number) {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({ success: false, message: expect.any(String), error: { code } });
  expect(response.body.error.legacy_code).toBe(legacy);
  expect(response.body.error.request_id).toBe(response.headers.get("x-request-id"));
}

async function storedMessages(t: TestGateway, account: TestAccount): Promise<number> {
  const rows = await t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", account.id).execute();
  return rows.length;
}

describeEachEngine("v2 SMS send refusals", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("refuses each bad input with its own status and code, never a 500, and charges nothing", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 50 } });
    await addSenderId(t.db.store.db, t.clock, account.id, "PENDNG");
    for (const refusal of REFUSALS) {
      const response = await sendSms(t, account, refusal.body);
      expect.soft(response.status, `${refusal.name}: ${response.text}`).toBe(refusal.status);
      expect.soft(response.body?.error?.code, refusal.name).toBe(refusal.code);
      expect.soft(response.body?.error?.legacy_code, refusal.name).toBe(refusal.legacy);
      expect.soft(response.body?.success, refusal.name).toBe(false);
      if (refusal.mentions) expect.soft(response.body?.message, refusal.name).toContain(refusal.mentions);
    }
    expect(await balanceOf(t, account)).toBe(50);
    expect(await storedMessages(t, account)).toBe(0);
  });

  it("names the field at fault in words and in error.field, never in a schema engine's phrase", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 5 } });
    // An unknown field is answered with the fields the route takes, as an unknown query parameter is.
    const unknown = await sendSms(t, account, { ...VALID, schedule_atx: "2030-01-01 10:00:00" });
    expect(unknown.status, unknown.text).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: "invalid_request", field: "schedule_atx" });
    expect(unknown.body.message).toMatch(
      /^Unknown field "schedule_atx" in body; this endpoint takes: sender_id, .*\bschedule_at\b/,
    );
    const wrongType = await sendSms(t, account, { ...VALID, flash: "yes" });
    expect(wrongType.status, wrongType.text).toBe(400);
    expect(wrongType.body).toMatchObject({ message: 'Field "flash" must be boolean.', error: { field: "flash" } });
    // The single send's field on the scheduled send: the answer shows the one it takes.
    const schedule = await call(t, "POST", "/api/v2/sms/schedule", {
      headers: keyOf(account),
      json: { ...VALID, schedule_at: "2030-01-01 10:00:00" },
    });
    expect(schedule.status, schedule.text).toBe(400);
    expect(schedule.body.error.field).toBe("schedule_at");
    expect(schedule.body.message).toMatch(
      /^Unknown field "schedule_at" in body; this endpoint takes: .*\bscheduled_at\b/,
    );
    // A body schema's required field (a group's name), and an unknown one on a resource call.
    const group = await call(t, "POST", "/api/v2/groups", { headers: keyOf(account), json: { description: "x" } });
    expect(group.status, group.text).toBe(400);
    expect(group.body).toMatchObject({ message: 'Missing required field "name" in body.', error: { field: "name" } });
    const extra = await call(t, "POST", "/api/v2/groups", {
      headers: keyOf(account),
      json: { name: "g", colour: "red" },
    });
    expect(extra.body).toMatchObject({
      message: 'Unknown field "colour" in body; this endpoint takes: name, description.',
      error: { field: "colour" },
    });
    expect(await balanceOf(t, account)).toBe(5);
  });

  it("reads an optional field sent as null as not sent, as SDKs that write every unset property send it", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 5 } });
    const nulls = { route: null, schedule_at: null, unicode: null, flash: null, dlt_entity_id: null };
    const sent = await sendSms(t, account, { ...VALID, ...nulls });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.data.status).toBe("queued");
    // A field the send needs, sent as null, is missing: its own code.
    const noSender = await sendSms(t, account, { ...VALID, sender_id: null });
    expect(noSender.status, noSender.text).toBe(400);
    expect(noSender.body.error).toMatchObject({ code: "missing_sender_id", legacy_code: -4 });
    // A resource call's optional field too; its required one is still refused, naming it.
    const group = await call(t, "POST", "/api/v2/groups", {
      headers: keyOf(account),
      json: { name: "nulls", description: null },
    });
    expect(group.status, group.text).toBe(201);
    const unnamed = await call(t, "POST", "/api/v2/groups", { headers: keyOf(account), json: { name: null } });
    expect(unnamed.status, unnamed.text).toBe(400);
    expect(unnamed.body.error.field).toBe("name");
    expect(await balanceOf(t, account)).toBe(4);
  });

  it("answers 400 invalid_json for malformed JSON, and an empty body as no body: the first missing field", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const headers = { ...keyOf(account), "content-type": "application/json" };
    for (const body of ['{"sender_id": "SWBRD", ', "{sender_id: 'SWBRD'}", "undefined"]) {
      expectRefusal(await call(t, "POST", "/api/v2/sms/send", { headers, body }), 400, "invalid_json");
    }
    // Clients that send the JSON type on every request (test/base/http/client-habits.test.ts).
    for (const body of ["", "  \n"]) {
      expectRefusal(await call(t, "POST", "/api/v2/sms/send", { headers, body }), 400, "missing_sender_id", -4);
    }
  });

  it("answers 402 with no credits, and stores and charges nothing", async () => {
    const t = gateway();
    const empty = await buildAccount(t, { credits: { sms: 0 } });
    expectRefusal(await sendSms(t, empty, VALID), 402, "insufficient_credits", -12);
    expect(await balanceOf(t, empty)).toBe(0);
    expect(await storedMessages(t, empty)).toBe(0);

    const short = await buildAccount(t, { credits: { sms: 1 } });
    expectRefusal(await sendSms(t, short, { ...VALID, message: "a".repeat(161) }), 402, "insufficient_credits", -12);
    expect(await balanceOf(t, short)).toBe(1);
    expect(await storedMessages(t, short)).toBe(0);
    const debits = await t.db.store.db
      .selectFrom("ledger_entries")
      .select("kind")
      .where("account_id", "=", short.id)
      .where("kind", "=", "debit")
      .execute();
    expect(debits).toEqual([]);
    expect((await sendSms(t, short, VALID)).status).toBe(200);
    expect(await balanceOf(t, short)).toBe(0);
  });

  it("answers 401 on every v2 SMS endpoint without a valid key", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const sent = await sendSms(t, account, VALID);
    const id = sent.body.data.message_id;
    const requests: Array<[string, string, unknown]> = [
      ["POST", "/api/v2/sms/send", VALID],
      ["GET", `/api/v2/sms/status/${id}`, undefined],
      ["GET", "/api/v2/balance", undefined],
      ["GET", "/api/v2/sender-ids", undefined],
    ];
    for (const [method, path, json] of requests) {
      const init = json === undefined ? {} : { json };
      const anonymous = await call(t, method, path, init);
      expectRefusal(anonymous, 401, "unauthorized", -7);
      // RFC 9110: a 401 names the scheme it would take.
      expect(anonymous.headers.get("www-authenticate"), path).toBe('Bearer realm="switchboard"');
      expectRefusal(
        await call(t, method, path, { ...init, headers: { authorization: "Bearer sb_not-a-key" } }),
        401,
        "unauthorized",
        -7,
      );
    }
    expect(await storedMessages(t, account)).toBe(1);
  });
});
