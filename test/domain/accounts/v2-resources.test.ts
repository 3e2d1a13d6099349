import { DateTime } from "luxon";
import { expect, it } from "vitest";
import { newQueueId } from "../../../src/base/core/ids.js";
import { setSenderIdStatus, setTemplateStatus, updateAccount } from "../../../src/domain/accounts/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import {
  buildAccount,
  call,
  type JsonResponse,
  type TestAccount,
  type TestGateway,
  useTestGateway,
} from "../../helpers/gateway.js";
import { messageRow } from "../../helpers/message-row.js";
import { FAST_SIMULATOR, ISO_UTC, keyOf, sendSms, statusOf, waitForStatus } from "../../helpers/sms.js";

const ISO_KOLKATA = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30$/;
/** Every time of a v2 answer: UTC to the second. */
const ISO_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

function get(t: TestGateway, account: TestAccount, path: string): Promise<JsonResponse> {
  return call(t, "GET", `/api/v2${path}`, { headers: keyOf(account) });
}

function post(t: TestGateway, account: TestAccount, path: string, json: unknown): Promise<JsonResponse> {
  return call(t, "POST", `/api/v2${path}`, { headers: keyOf(account), json });
}

function expectError(response: JsonResponse, status: number, code: string) {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toMatchObject({ status: "error", message: expect.any(String), error: { code } });
  expect(response.body.message.length).toBeGreaterThan(10);
}

async function sendOne(t: TestGateway, account: TestAccount, recipient = "9876543210") {
  const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient, message: "hello from the tests" });
  expect(sent.status, sent.text).toBe(200);
  return waitForStatus(t, account, sent.body.data.message_id);
}

describeEachEngine("v2 account resources", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("creates templates as pending drafts, lists them with pagination and a status filter, and gets one", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const ids: number[] = [];
    for (const n of [1, 2, 3]) {
      const created = await post(t, account, "/templates", {
        name: `otp ${n}`,
        content: `Your code is {#var#} (${n})`,
        dlt_template_id: `110716${n}0000000000${n}`,
        entity_id: "1101234567890123456",
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({
        status: "success",
        data: { name: `otp ${n}`, status: "pending", entity_id: "1101234567890123456" },
      });
      ids.push(created.body.data.id);
    }

    const all = await get(t, account, "/templates");
    expect(all.status).toBe(200);
    expect(all.body.status).toBe("success");
    expect(all.body.data.map((row: { id: number }) => row.id)).toEqual(ids);
    expect(all.body.meta).toEqual({ page: 1, per_page: 25, total: 3, last_page: 1 });

    const second = await get(t, account, "/templates?per_page=2&page=2");
    expect(second.body.data.map((row: { id: number }) => row.id)).toEqual([ids[2]]);
    expect(second.body.meta).toEqual({ page: 2, per_page: 2, total: 3, last_page: 2 });

    const past = await get(t, account, "/templates?per_page=2&page=9");
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ status: "success", data: [], meta: { page: 9, per_page: 2, total: 3, last_page: 2 } });

    const max = await get(t, account, "/templates?per_page=100");
    expect(max.body.meta.per_page).toBe(100);

    await setTemplateStatus(t.db.store.db, t.clock, ids[1]!, "approved");
    const approved = await get(t, account, "/templates?status=approved");
    expect(approved.body.data.map((row: { id: number }) => row.id)).toEqual([ids[1]]);
    expect(approved.body.meta).toEqual({ page: 1, per_page: 25, total: 1, last_page: 1 });
    const rejected = await get(t, account, "/templates?status=rejected");
    expect(rejected.body).toMatchObject({ data: [], meta: { total: 0, last_page: 1 } });

    const one = await get(t, account, `/templates/${ids[1]}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id: ids[1], name: "otp 2", status: "approved" });

    const stranger = await buildAccount(t);
    expectError(await get(t, stranger, `/templates/${ids[0]}`), 404, "not_found");
    expect((await get(t, stranger, "/templates")).body.meta.total).toBe(0);
    for (const id of ["999999", "abc", "1.5", "-1", "99999999999999999999"]) {
      expectError(await get(t, account, `/templates/${id}`), 404, "not_found");
    }
  });

  it("refuses bad pagination and bad templates with 400, never 500", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const bad = [
      "per_page=101",
      "per_page=0",
      "per_page=-1",
      "per_page=abc",
      "page=0",
      "page=-3",
      "page=1.5",
      "status=bogus",
    ];
    for (const query of bad) {
      const response = await get(t, account, `/templates?${query}`);
      expectError(response, 400, "invalid_request");
    }
    const over = await get(t, account, "/templates?per_page=101");
    expect(over.body.message).toContain("per_page");
    expect(over.body.message).toContain("100");

    // Each refusal names the field it is about.
    const bodies: [Record<string, unknown>, string][] = [
      [{ content: "no name" }, "name"],
      [{ name: "empty content", content: "" }, "content"],
      [{ name: "", content: "x" }, "name"],
      [{ name: "blank", content: "   " }, "content"],
      [{ name: "bad dlt", content: "x", dlt_template_id: "not valid!" }, "dlt_template_id"],
      [{ name: "bad entity", content: "x", entity_id: "###" }, "entity_id"],
      [{ name: "extra", content: "x", approve: true }, "approve"],
      [{ name: 5, content: "x" }, "name"],
    ];
    for (const [body, field] of bodies) {
      const refused = await post(t, account, "/templates", body);
      expectError(refused, 400, "invalid_request");
      expect(refused.body.error.field, JSON.stringify(body)).toBe(field);
    }
    const notJson = await call(t, "POST", "/api/v2/templates", {
      headers: { ...keyOf(account), "content-type": "application/json" },
      body: "{nope",
    });
    expectError(notJson, 400, "invalid_json");
    expect((await get(t, account, "/templates")).body.meta.total).toBe(0);

    const anonymous = await call(t, "GET", "/api/v2/templates");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.status).toBe("error");
  });

  it("creates a draft from the name alone (the spec's one required field), which cannot be approved", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const draft = await post(t, account, "/templates", { name: "Diwali offer" });
    expect(draft.status, draft.text).toBe(201);
    expect(draft.body.data).toMatchObject({ name: "Diwali offer", content: "", status: "pending" });
    const approve = await call(t, "POST", `/admin/api/templates/${draft.body.data.id}/approve`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(approve.status, approve.text).toBe(400);
    expect(approve.body.message).toContain("without content");
    expect((await get(t, account, `/templates/${draft.body.data.id}`)).body.data.status).toBe("pending");
    const missingName = await post(t, account, "/templates", { content: "Your OTP is {#var#}" });
    expect(missingName.status).toBe(400);
    expect(missingName.body).toMatchObject({
      message: 'Missing required field "name" in body.',
      error: { field: "name" },
    });
  });

  it("answers the account status, the credit detail and the one-message report", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100, international: 7 } });
    const fresh = await get(t, account, "/account/status");
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({
      status: "success",
      data: {
        credit_balance: 100,
        today: { total_sent: 0, delivered: 0, failed: 0, credits_used: 0 },
        pending: { templates: 0, sender_ids: 0 },
        account_status: "active",
        send_disabled_reason: null,
        server_time: expect.stringMatching(ISO_KOLKATA),
      },
    });
    expect(Math.abs(Date.parse(fresh.body.data.server_time) - Date.now())).toBeLessThan(60_000);
    // In UTC too the offset is written, +00:00 (the spec: "ISO 8601 with offset").
    await t.db.store.db.updateTable("accounts").set({ time_zone: "UTC" }).where("id", "=", account.id).execute();
    expect((await get(t, account, "/account/status")).body.data.server_time).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/,
    );
    await t.db.store.db
      .updateTable("accounts")
      .set({ time_zone: "Asia/Kolkata" })
      .where("id", "=", account.id)
      .execute();

    const report = await sendOne(t, account);
    expect(report.status).toBe("delivered");
    const template = await post(t, account, "/templates", { name: "waiting", content: "Hi {#var#}" });
    const request = await post(t, account, "/sender-id-requests", { sender_id: "NEWHDR" });
    for (const answer of [
      template.body.data,
      (await get(t, account, "/templates")).body.data[0],
      (await get(t, account, `/templates/${template.body.data.id}`)).body.data,
      request.body.data,
      (await get(t, account, "/sender-id-requests")).body.data[0],
    ]) {
      expect(answer.created_at, JSON.stringify(answer)).toMatch(ISO_SECONDS);
      if ("updated_at" in answer) expect(answer.updated_at).toMatch(ISO_SECONDS);
    }

    const after = await get(t, account, "/account/status");
    expect(after.body.data).toMatchObject({
      credit_balance: 99,
      today: { total_sent: 1, delivered: 1, failed: 0, credits_used: 1 },
      pending: { templates: 1, sender_ids: 1 },
    });

    const credits = await get(t, account, "/credits");
    expect(credits.status).toBe(200);
    expect(credits.body.data).toMatchObject({
      balance: 99,
      international_credit: 7,
      today_used: 1,
      month_used: 1,
      flood_current: 1,
      flood_limit: 0,
    });
    const recent = credits.body.data.recent_credits;
    expect(recent).toHaveLength(3);
    expect(recent[0]).toEqual({
      id: expect.any(Number),
      wallet: "sms",
      amount: -1,
      kind: "debit",
      note: "sms message",
      created_at: expect.stringMatching(ISO_UTC),
      balance_after: 99,
    });
    expect(recent.map((entry: { kind: string }) => entry.kind)).toEqual(["debit", "topup", "topup"]);

    const byReport = await get(t, account, `/reports/${report.message_id}`);
    expect(byReport.status).toBe(200);
    expect(byReport.body).toEqual({ status: "success", data: report });
    expect((await statusOf(t, account, report.message_id)).body.data).toEqual(byReport.body.data);

    const stranger = await buildAccount(t);
    expectError(await get(t, stranger, `/reports/${report.message_id}`), 404, "not_found");
    expectError(await get(t, account, `/reports/${report.broadcast_id}`), 404, "not_found");
    for (const id of ["q01ARZ3NDEKTSV4RRFFQ69G5FAV", "nope", encodeURIComponent("nope\u0000")]) {
      expectError(await get(t, account, `/reports/${id}`), 404, "not_found");
    }
  });

  it("counts today's SMS that went out and their outcomes as one set; credits used are the ledger's", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100, whatsapp: 5 } });
    expect((await sendOne(t, account)).status).toBe("delivered");
    // Held for two hours from now, and another held then cancelled: neither went out.
    const later = DateTime.fromMillis(Date.now() + 2 * 3_600_000, { zone: "Asia/Kolkata" }).toFormat(
      "yyyy-MM-dd HH:mm:ss",
    );
    const held = { sender_id: "SWBRD", recipient: "9876543210", message: "see you later", schedule_at: later };
    expect((await sendSms(t, account, held)).status).toBe(200);
    const cancelled = (await sendSms(t, account, held)).body.data.message_id;
    const cancel = await call(t, "DELETE", `/api/v2/sms/schedule/${cancelled}`, { headers: keyOf(account) });
    expect(cancel.status, cancel.text).toBe(200);
    // A WhatsApp message read, an SMS failed before any carrier (refunded) and a 2-part SMS its
    // carrier failed (charged), as their writers leave them.
    const now = t.clock.now().getTime();
    const row = (changes: Parameters<typeof messageRow>[0]) =>
      messageRow({ account_id: account.id, created_at: now, done_at: now, ...changes });
    await t.db.store.db
      .insertInto("messages")
      .values([
        row({ id: newQueueId(now), channel: "whatsapp", wallet: "whatsapp", status: "read", submitted_at: now }),
        row({ id: newQueueId(now), status: "failed", error_code: "no_route" }),
        row({ id: newQueueId(now), status: "failed", segments: 2, credits: 2000, submitted_at: now }),
      ])
      .execute();

    const status = await get(t, account, "/account/status");
    expect(status.status).toBe(200);
    // credits_used is what the ledger was debited today net of refunds (test/domain/accounts/
    // credits-used.test.ts): the sent one and the one still held; the cancelled one was refunded,
    // and the rows written here were charged nothing.
    expect(status.body.data.today).toEqual({ total_sent: 3, delivered: 1, failed: 2, credits_used: 2 });
  });

  it("gives one entry per account-local day of credit history, 1 to 90 days", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await sendOne(t, account);
    await sendOne(t, account, "9876543211");

    const history = await get(t, account, "/credits/history");
    expect(history.status).toBe(200);
    expect(history.body.status).toBe("success");
    const days = history.body.data;
    expect(days).toHaveLength(30);
    for (const day of days) expect(day.date).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(new Set(days.map((day: { date: string }) => day.date)).size).toBe(30);
    expect(days.at(-1)).toEqual({
      date: new Date(Date.now() + 5.5 * 3600_000).toISOString().slice(0, 10),
      credits_used: 2,
      messages: 2,
    });
    expect(days.slice(0, -1).every((day: { messages: number }) => day.messages === 0)).toBe(true);

    expect((await get(t, account, "/credits/history?days=1")).body.data).toHaveLength(1);
    expect((await get(t, account, "/credits/history?days=90")).body.data).toHaveLength(90);
    for (const bad of ["91", "0", "-1", "abc", "7.5"]) {
      const response = await get(t, account, `/credits/history?days=${bad}`);
      expectError(response, 400, "invalid_request");
      expect(response.body.message).toContain("days");
    }
  });

  it("transfers credits to another active user in both ledgers, and refuses the bad ones clearly", async () => {
    const t = gateway();
    const sender = await buildAccount(t, { credits: { sms: 100 } });
    const receiver = await buildAccount(t, { credits: { sms: 10 } });
    const transfer = (json: unknown) => post(t, sender, "/credits/transfer", json);

    const done = await transfer({
      recipient_username: receiver.username,
      amount: 25.5,
      description: "for the campaign",
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({
      status: "success",
      data: { recipient_username: receiver.username, amount: 25.5, balance: 74.5, description: "for the campaign" },
    });
    expect((await get(t, sender, "/credits")).body.data.recent_credits[0]).toMatchObject({
      kind: "transfer_out",
      amount: -25.5,
      balance_after: 74.5,
      note: "for the campaign",
    });
    const received = (await get(t, receiver, "/credits")).body.data;
    expect(received.balance).toBe(35.5);
    expect(received.recent_credits[0]).toMatchObject({ kind: "transfer_in", amount: 25.5, balance_after: 35.5 });

    const self = await transfer({ recipient_username: sender.username, amount: 1 });
    expectError(self, 400, "invalid_request");
    expect(self.body.message).toMatch(/own account/);
    for (const amount of [0, -5, 0.0001]) {
      const response = await transfer({ recipient_username: receiver.username, amount });
      expectError(response, 400, "invalid_request");
      expect(response.body.message).toMatch(/amount/i);
    }
    const tooMuch = await transfer({ recipient_username: receiver.username, amount: 74.501 });
    expectError(tooMuch, 402, "insufficient_credits");
    expect(tooMuch.body.message).toContain("74.5");
    const unknown = await transfer({ recipient_username: "nobody_here_at_all", amount: 1 });
    expectError(unknown, 404, "not_found");
    expect(unknown.body.message).toContain("nobody_here_at_all");

    const operator = await buildAccount(t, { role: "operator", sender: null });
    const toOperator = await transfer({ recipient_username: operator.username, amount: 1 });
    expectError(toOperator, 403, "forbidden");
    expect(toOperator.body.message).toContain("operator's account");
    expect((await get(t, sender, "/credits")).body.data.balance).toBe(74.5);

    const inactive = await buildAccount(t);
    await updateAccount(t.db.store, t.clock, inactive.username, { status: "inactive" });
    const toInactive = await transfer({ recipient_username: inactive.username, amount: 1 });
    expectError(toInactive, 422, "recipient_inactive");
    expect(toInactive.body.message).toContain("inactive");

    for (const body of [
      {},
      { amount: 1 },
      { recipient_username: receiver.username },
      { recipient_username: receiver.username, amount: "5" },
      { recipient_username: receiver.username, amount: 1, extra: 1 },
      { recipient_username: receiver.username, amount: 1e12 },
    ]) {
      expectError(await transfer(body), 400, "invalid_request");
    }
    // Nothing moved after the refusals.
    expect((await get(t, sender, "/credits")).body.data.balance).toBe(74.5);
    expect((await get(t, receiver, "/credits")).body.data.balance).toBe(35.5);
  });

  it("lists and requests sender IDs; asking again answers the current state", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const requested = await post(t, account, "/sender-id-requests", { sender_id: "alerts", note: "bank alerts" });
    expect(requested.status, requested.text).toBe(201);
    expect(requested.body).toMatchObject({
      status: "success",
      data: { sender_id: "ALERTS", status: "pending", note: "bank alerts", created_at: expect.stringMatching(ISO_UTC) },
    });
    const again = await post(t, account, "/sender-id-requests", { sender_id: "ALERTS" });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(requested.body.data);

    const approvedAgain = await post(t, account, "/sender-id-requests", { sender_id: "SWBRD" });
    expect(approvedAgain.status).toBe(200);
    expect(approvedAgain.body.data).toMatchObject({ sender_id: "SWBRD", status: "approved" });

    await setSenderIdStatus(t.db.store.db, t.clock, requested.body.data.id, "rejected");
    const rejectedAgain = await post(t, account, "/sender-id-requests", { sender_id: "alerts" });
    expect(rejectedAgain.body.data.status).toBe("rejected");

    const list = await get(t, account, "/sender-id-requests");
    expect(list.status).toBe(200);
    expect(list.body.data.map((row: { sender_id: string; status: string }) => [row.sender_id, row.status])).toEqual([
      ["SWBRD", "approved"],
      ["ALERTS", "rejected"],
    ]);
    const stranger = await buildAccount(t, { sender: null });
    expect((await get(t, stranger, "/sender-id-requests")).body.data).toEqual([]);

    expectError(await post(t, account, "/sender-id-requests", { sender_id: "no spaces!" }), 422, "invalid_sender_id");
    expectError(await post(t, account, "/sender-id-requests", {}), 400, "invalid_request");
    expectError(
      await post(t, account, "/sender-id-requests", { sender_id: "OKAYID", extra: 1 }),
      400,
      "invalid_request",
    );
  });
});
