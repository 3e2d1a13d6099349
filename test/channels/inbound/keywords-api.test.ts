import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { ISO_UTC } from "../../helpers/sms.js";
import { assignNumber, expectError, inject, operatorCall, v2 } from "./helpers.js";

describeEachEngine("v2 keywords and the inbound operator API", (engine) => {
  const gateway = useTestGateway(engine);
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  const admin = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);

  it("creates keywords pending, lists them with pagination and a status filter, and gets one", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const info = await v2(t, account, "POST", "/keywords", {
      key: " info ",
      response_type: "static",
      static_message: "Open 9 to 5, Monday to Friday.",
    });
    expect(info.status, info.text).toBe(201);
    expect(info.body).toEqual({
      status: "success",
      data: {
        id: expect.any(Number),
        key: "INFO",
        response_type: "static",
        static_message: "Open 9 to 5, Monday to Friday.",
        status: "pending",
        rejection_reason: null,
        created_at: expect.stringMatching(ISO_UTC),
        updated_at: expect.stringMatching(ISO_UTC),
      },
    });
    const vote = await v2(t, account, "POST", "/keywords", { key: "Vote2", response_type: "none" });
    expect(vote.status, vote.text).toBe(201);
    expect(vote.body.data).toMatchObject({ key: "VOTE2", response_type: "none", static_message: null });
    const third = await v2(t, account, "POST", "/keywords", {
      key: "HELP",
      response_type: "none",
      static_message: null,
    });
    expect(third.status, third.text).toBe(201);

    const all = await v2(t, account, "GET", "/keywords");
    expect(all.status).toBe(200);
    expect(all.body.data.map((k: { key: string }) => k.key)).toEqual(["INFO", "VOTE2", "HELP"]);
    expect(all.body.meta).toEqual({ page: 1, per_page: 25, total: 3, last_page: 1 });
    const second = await v2(t, account, "GET", "/keywords?per_page=2&page=2");
    expect(second.body.data.map((k: { key: string }) => k.key)).toEqual(["HELP"]);
    expect(second.body.meta).toEqual({ page: 2, per_page: 2, total: 3, last_page: 2 });
    const past = await v2(t, account, "GET", "/keywords?per_page=2&page=5");
    expect(past.body).toEqual({ status: "success", data: [], meta: { page: 5, per_page: 2, total: 3, last_page: 2 } });

    const approved = await admin("POST", `/admin/api/keywords/${vote.body.data.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ id: vote.body.data.id, key: "VOTE2", status: "approved" });
    const rejected = await admin("POST", `/admin/api/keywords/${third.body.data.id}/reject`);
    expect(rejected.body.data.status).toBe("rejected");
    const onlyApproved = await v2(t, account, "GET", "/keywords?status=approved");
    expect(onlyApproved.body.data.map((k: { key: string }) => k.key)).toEqual(["VOTE2"]);
    expect(onlyApproved.body.meta.total).toBe(1);

    const one = await v2(t, account, "GET", `/keywords/${info.body.data.id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id: info.body.data.id, key: "INFO", status: "pending", received: [] });
    expect(one.body.data.received_total).toBe(0);
    expect(one.body.meta).toEqual({ page: 1, per_page: 50, total: 0, last_page: 1 });

    const operatorList = await admin("GET", `/admin/api/accounts/${account.username}/keywords?status=pending`);
    expect(operatorList.body.data.map((k: { key: string; account: string }) => [k.key, k.account])).toEqual([
      ["INFO", account.username],
    ]);
  });

  it("lists the messages a keyword matched, newest first, paginated", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await assignNumber(t, operator, account, "9220500101");
    const created = await v2(t, account, "POST", "/keywords", { key: "POLL", response_type: "none" });
    await admin("POST", `/admin/api/keywords/${created.body.data.id}/approve`);
    const times = ["2026-01-01T10:00:00Z", "2026-01-01T10:00:02Z", "2026-01-01T10:00:01Z"];
    for (const [i, at] of times.entries()) {
      const sent = await inject(t, operator, {
        to: "9220500101",
        from: `98765000${10 + i}`,
        message: `poll option ${i}`,
        received_at: at,
      });
      expect(sent.status, sent.text).toBe(201);
    }
    await inject(t, operator, { to: "9220500101", from: "9876500020", message: "not a poll" });

    const first = await v2(t, account, "GET", `/keywords/${created.body.data.id}?per_page=2`);
    expect(first.body.data.received_total).toBe(3);
    expect(first.body.meta).toEqual({ page: 1, per_page: 2, total: 3, last_page: 2 });
    expect(first.body.data.received).toEqual([
      {
        id: expect.any(Number),
        from: "9876500011",
        to: "9220500101",
        message: "poll option 1",
        received_at: "2026-01-01T10:00:02Z",
        keyword_id: created.body.data.id,
        keyword: "POLL",
        reply_message_id: null,
      },
      expect.objectContaining({ message: "poll option 2", received_at: "2026-01-01T10:00:01Z" }),
    ]);
    const rest = await v2(t, account, "GET", `/keywords/${created.body.data.id}?per_page=2&page=2`);
    expect(rest.body.data.received.map((r: { message: string }) => r.message)).toEqual(["poll option 0"]);

    const inbox = await v2(t, account, "GET", "/inbound");
    expect(inbox.body.meta).toEqual({ page: 1, per_page: 50, total: 4, last_page: 1 });
    expect(inbox.body.data[0]).toMatchObject({ message: "not a poll", keyword: null, keyword_id: null });
    expectError(await v2(t, account, "GET", "/inbound?per_page=201"), 400, "invalid_request");
    expectError(await v2(t, account, "GET", "/inbound?page=0"), 400, "invalid_request");
    expectError(await v2(t, account, "GET", `/keywords/${created.body.data.id}?per_page=0`), 400, "invalid_request");

    const stranger = await buildAccount(t);
    expect((await v2(t, stranger, "GET", "/inbound")).body.meta.total).toBe(0);
  });

  it.each([
    ["no key", { response_type: "none" }],
    ["an empty key", { key: "  ", response_type: "none" }],
    ["two words", { key: "MORE INFO", response_type: "none" }],
    ["a key over 30 characters", { key: "K".repeat(31), response_type: "none" }],
    ["punctuation in the key", { key: "INFO!", response_type: "none" }],
    ["a reserved opt-out word", { key: "stop", response_type: "none" }],
    ["the opt-in word", { key: "Start", response_type: "none" }],
    ["no response_type", { key: "INFO" }],
    ["an unknown response_type", { key: "INFO", response_type: "dynamic" }],
    ["static without a message", { key: "INFO", response_type: "static" }],
    ["static with a blank message", { key: "INFO", response_type: "static", static_message: "  " }],
    ["static with a null message", { key: "INFO", response_type: "static", static_message: null }],
    ["a message on a none keyword", { key: "INFO", response_type: "none", static_message: "hello" }],
    ["a reply over 10 segments", { key: "INFO", response_type: "static", static_message: "x".repeat(1531) }],
    ["a wrong type", { key: 42, response_type: "none" }],
    ["an unknown field", { key: "INFO", response_type: "none", reply: "x" }],
  ])("refuses a keyword with %s: 400 invalid_request, nothing stored", async (_name, body) => {
    const t = gateway();
    const account = await buildAccount(t);
    expectError(await v2(t, account, "POST", "/keywords", body), 400, "invalid_request");
    expect((await v2(t, account, "GET", "/keywords")).body.meta.total).toBe(0);
  });

  it("takes a key of exactly 30 characters and a 10-segment reply", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const long = await v2(t, account, "POST", "/keywords", {
      key: "k".repeat(30),
      response_type: "static",
      static_message: "x".repeat(1530),
    });
    expect(long.status, long.text).toBe(201);
    expect(long.body.data.key).toBe("K".repeat(30));
  });

  it("refuses a duplicate key whatever its case with 409, and hides other accounts' keywords", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const created = await v2(t, account, "POST", "/keywords", { key: "OFFER", response_type: "none" });
    expect(created.status).toBe(201);
    expectError(await v2(t, account, "POST", "/keywords", { key: "offer", response_type: "none" }), 409, "conflict");
    await admin("POST", `/admin/api/keywords/${created.body.data.id}/reject`);
    expectError(await v2(t, account, "POST", "/keywords", { key: "Offer", response_type: "none" }), 409, "conflict");

    const other = await buildAccount(t);
    const theirs = await v2(t, other, "POST", "/keywords", { key: "OFFER", response_type: "none" });
    expect(theirs.status, "another account may use the same key").toBe(201);
    expectError(await v2(t, other, "GET", `/keywords/${created.body.data.id}`), 404, "not_found");
    for (const id of ["999999", "abc", "0", "-1", "1.5", "99999999999999999999"]) {
      expectError(await v2(t, account, "GET", `/keywords/${id}`), 404, "not_found");
    }
    expectError(await v2(t, account, "GET", "/keywords?status=bogus"), 400, "invalid_request");
    expectError(await v2(t, account, "GET", "/keywords?per_page=101"), 400, "invalid_request");
    expectError(await call(t, "GET", "/api/v2/keywords"), 401, "unauthorized");
  });

  it("assigns, lists and removes inbound numbers; a number belongs to one account", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const path = `/admin/api/accounts/${account.username}/inbound-numbers`;
    const created = await admin("POST", path, { number: "+91 92205-00200" });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(Number),
      number: "9220500200",
      account: account.username,
      created_at: expect.stringMatching(/Z$/),
    });
    const again = await admin("POST", path, { number: "09220500200" });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(created.body.data.id);
    expect((await admin("POST", path, { number: "56767" })).status).toBe(201);

    const other = await buildAccount(t);
    expectError(
      await admin("POST", `/admin/api/accounts/${other.username}/inbound-numbers`, { number: "919220500200" }),
      409,
      "conflict",
    );
    for (const bad of ["12", "abc", "98765-ABCD", "1".repeat(21)]) {
      expectError(await admin("POST", path, { number: bad }), 400, "invalid_request");
    }
    expectError(
      await admin("POST", "/admin/api/accounts/nobody/inbound-numbers", { number: "56768" }),
      404,
      "not_found",
    );

    const listed = await admin("GET", path);
    expect(listed.body.data.map((n: { number: string }) => n.number)).toEqual(["9220500200", "56767"]);

    const removed = await admin("DELETE", `${path}/56767`);
    expect(removed.body.data).toEqual({ account: account.username, number: "56767", removed: true });
    expectError(await admin("DELETE", `${path}/56767`), 404, "not_found");
    expectError(
      await admin("DELETE", `/admin/api/accounts/${other.username}/inbound-numbers/9220500200`),
      404,
      "not_found",
    );
    expect((await admin("GET", path)).body.data).toHaveLength(1);
  });

  it("adds, lists and removes suppressions by hand", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const path = `/admin/api/accounts/${account.username}/suppressions`;
    const added = await admin("POST", path, {
      numbers: ["+919876543210", "9876543211", "9876543210"],
      reason: "complaint",
    });
    expect(added.body.data).toEqual({ account: account.username, added: 2, duplicates: 1 });
    const again = await admin("POST", path, { numbers: ["9876543211"] });
    expect(again.body.data).toMatchObject({ added: 0, duplicates: 1 });
    expectError(await admin("POST", path, { numbers: ["9876543212", "12"] }), 400, "invalid_request");
    expectError(await admin("POST", path, { numbers: [] }), 400, "invalid_request");

    const listed = await admin("GET", `${path}?per_page=1`);
    expect(listed.body.meta).toEqual({ page: 1, per_page: 1, total: 2, last_page: 2 });
    expect(listed.body.data[0]).toEqual({
      number: expect.stringMatching(/^987654321[01]$/),
      reason: "complaint",
      created_at: expect.stringMatching(/Z$/),
    });
    const removed = await admin("DELETE", path, { numbers: ["9876543210", "9876543299"] });
    expect(removed.body.data).toEqual({ account: account.username, removed: 1 });
    expect((await admin("GET", path)).body.data.map((s: { number: string }) => s.number)).toEqual(["9876543211"]);
  });

  it("keeps the inbound operator routes for operators", async () => {
    const t = gateway();
    const customer = await buildAccount(t);
    const routes: [string, string, unknown?][] = [
      ["GET", `/admin/api/accounts/${customer.username}/inbound-numbers`],
      ["POST", `/admin/api/accounts/${customer.username}/inbound-numbers`, { number: "56769" }],
      ["DELETE", `/admin/api/accounts/${customer.username}/inbound-numbers/56769`],
      ["GET", `/admin/api/accounts/${customer.username}/keywords`],
      ["POST", "/admin/api/keywords/1/approve"],
      ["POST", "/admin/api/keywords/1/reject"],
      ["GET", `/admin/api/accounts/${customer.username}/suppressions`],
      ["POST", `/admin/api/accounts/${customer.username}/suppressions`, { numbers: ["9876543210"] }],
      ["DELETE", `/admin/api/accounts/${customer.username}/suppressions`, { numbers: ["9876543210"] }],
      ["POST", "/admin/api/inbound", { to: "56769", from: "9876543210", message: "hi" }],
    ];
    for (const [method, path, json] of routes) {
      const init = json === undefined ? {} : { json };
      expectError(await call(t, method, path, init), 401, "unauthorized");
      expectError(
        await call(t, method, path, { ...init, headers: { "x-api-key": customer.apiKey } }),
        403,
        "operator_only",
      );
    }
    expectError(await admin("POST", "/admin/api/keywords/987654/approve"), 404, "not_found");
  });
});
