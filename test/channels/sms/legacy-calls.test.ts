// The legacy calls besides send: credits, delivery report, templates, template creation,
// account status and the MIS report, each under both legacy prefixes (GET and POST form),
// answering plain text or a JSON array exactly as integrations of the earlier platform read them.
import { DateTime } from "luxon";
import { beforeAll, expect, it } from "vitest";
import { newQueueId } from "../../../src/base/core/ids.js";
import { approveCallerIdFor } from "../../../src/channels/voice/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import {
  credentials,
  expectBroadcastId,
  legacy,
  operatorCall,
  type Params,
  sendParams,
  type TextResponse,
} from "../../helpers/legacy.js";
import { messageRow } from "../../helpers/message-row.js";
import { FAST_SIMULATOR, statusOf } from "../../helpers/sms.js";
import { CALLER, callParams, placeCall } from "../voice/helpers.js";

const PREFIXES = ["/httpapi", "/api/secure_api/httpapi"] as const;
// POST as a urlencoded form, and as multipart/form-data (PHP's cURL given an array, Postman).
const METHODS = ["GET", "POST", "MULTIPART"] as const;
const ENTITY = "1101160000000000002";

function expectText(response: TextResponse, text: string, what = ""): void {
  expect({ status: response.status, text: response.text }, what).toEqual({ status: 200, text });
  expect(response.headers.get("content-type"), what).toBe("text/plain; charset=utf-8");
}

/** A legacy list (templates, mis): a JSON array, served as JSON. */
function jsonList(response: TextResponse, what = ""): Record<string, unknown>[] {
  expect(response.status, `${what} ${response.text}`).toBe(200);
  expect(response.headers.get("content-type"), what).toBe("application/json; charset=utf-8");
  const list = JSON.parse(response.text);
  expect(Array.isArray(list), what).toBe(true);
  return list;
}

/** Waits until every message of the broadcast is delivered or failed. */
async function waitForFinal(t: TestGateway, account: TestAccount, broadcastId: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const status = await statusOf(t, account, broadcastId);
    const states: string[] = status.body.data.messages.map((m: { status: string }) => m.status);
    if (states.every((s) => s === "delivered" || s === "failed")) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`broadcast ${broadcastId} did not reach final states in time`);
}

// The engines' suites run at the same time (the simulator's reports are waits), each on its own
// gateway.
describeEnginesTogether("legacy calls: credits, dlr, templates, addtemplate, accountstatus, mis", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("GET /api/getcredits answers the SMS balance as a plain number, by password or key, GET or POST", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 1000, international: 50 } });
    const { apiKey } = account;
    for (const method of METHODS) {
      expectText(await legacy(t, "/api/getcredits", credentials(account), method), "1000", method);
      expectText(await legacy(t, "/api/getcredits", { api_key: apiKey }, method), "1000", method);
      expectText(await legacy(t, "/api/getcredits", { apikey: apiKey }, method), "1000", method);
    }
    // A two-part message costs two credits.
    expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(account, { message: "a".repeat(161) })), account);
    expectText(await legacy(t, "/api/getcredits", credentials(account)), "998");

    expectText(await legacy(t, "/api/getcredits", {}), "-1");
    expectText(await legacy(t, "/api/getcredits", { username: account.username }), "-2");
    expectText(await legacy(t, "/api/getcredits", { ...credentials(account), password: "wrong-one" }), "-7");
    expectText(await legacy(t, "/api/getcredits", { api_key: "sb_nope" }), "-7");
  });

  it("a phonenumber given more than once (repeated, in any case, a JSON array) sends to every number", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const numbersOf = async (broadcastId: string) =>
      (
        await t.db.store.db
          .selectFrom("messages")
          .select("recipient")
          .where("account_id", "=", account.id)
          .where("broadcast_id", "=", broadcastId)
          .execute()
      )
        .map((row) => row.recipient)
        .sort();
    const { phonenumber: _, ...rest } = sendParams(account) as Record<string, string>;
    const repeated = new URLSearchParams(rest);
    repeated.append("phonenumber", "9876500011");
    repeated.append("PhoneNumber", "9876500012,9876500013");
    repeated.append("phonenumber", "9876500011");
    const answer = await fetch(`${t.url}/httpapi/send?${repeated}`);
    const get = { status: answer.status, headers: answer.headers, text: await answer.text() };
    // The repeat of 9876500011 is sent once (duplicate_recipient, in the log of refusals).
    expect(await numbersOf(expectBroadcastId(get, account, "repeated"))).toEqual([
      "9876500011",
      "9876500012",
      "9876500013",
    ]);
    const posted = await fetch(`${t.url}/api/secure_api/httpapi/send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...rest, phonenumber: ["9876500021", 9876500022] }),
    });
    const json = { status: posted.status, headers: posted.headers, text: await posted.text() };
    expect(await numbersOf(expectBroadcastId(json, account, "JSON array"))).toEqual(["9876500021", "9876500022"]);
  });

  it("a HEAD request (a link checker, a monitor) sends nothing on the GET send paths", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const query = new URLSearchParams(sendParams(account, { phonenumber: "9876543210" }) as Record<string, string>);
    for (const path of ["/httpapi/send", "/api/secure_api/httpapi/send"]) {
      // 405, Allow: GET, POST (decision 0186; legacy-conformance.test.ts).
      const head = await fetch(`${t.url}${path}?${query}`, { method: "HEAD" });
      expect(head.status).toBe(405);
      expect(head.headers.get("allow")).toBe("GET, POST");
    }
    await t.db.store.db.updateTable("accounts").set({ get_api_enabled: 1 }).where("id", "=", account.id).execute();
    const v2 = new URLSearchParams({
      api_key: account.apiKey,
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Hi",
    });
    // 405 as well, Allow: GET, POST (decision 0186's addendum; test/app/method-answers.test.ts).
    expect((await fetch(`${t.url}/api/v2/sms/send?${v2}`, { method: "HEAD" })).status).toBe(405);
    const rows = await t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", account.id).execute();
    expect(rows).toHaveLength(0);
    // The GET itself still sends.
    expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(account, { phonenumber: "9876543210" })), account);
  });

  it("dlr answers delivered, failed or submitted per number of a broadcast, and -15 for anything unknown", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const stranger = await buildAccount(t);
    // The simulated carrier fails numbers ending 0001.
    const id = expectBroadcastId(
      await legacy(t, "/httpapi/send", sendParams(account, { phonenumber: "9876543210,9876540001" })),
      account,
    );
    await waitForFinal(t, account, id);
    const later = DateTime.now().setZone("Asia/Kolkata").plus({ days: 2 }).toFormat("yyyy-MM-dd HH:mm:ss");
    const scheduled = expectBroadcastId(
      await legacy(t, "/httpapi/send", sendParams(account, { phonenumber: "9123456789", schedule: later })),
      account,
    );

    for (const prefix of PREFIXES) {
      for (const method of METHODS) {
        const dlr = (broadcastid: string, phonenumber: string, extra: Params = {}) =>
          legacy(t, `${prefix}/dlr`, { ...credentials(account), broadcastid, phonenumber, ...extra }, method);
        const where = `${method} ${prefix}`;
        expectText(await dlr(id, "9876543210"), "delivered", where);
        expectText(await dlr(id, "+919876543210"), "delivered", where);
        expectText(await dlr(id, "9876540001"), "failed", where);
        expectText(await dlr(scheduled, "9123456789"), "submitted", where);
        expectText(await dlr(id, "9123456789"), "-15", where);
        expectText(await dlr(scheduled, "9876543210"), "-15", where);
        expectText(await dlr(`${account.id}_20200101_000001`, "9876543210"), "-15", where);
        expectText(await dlr("not-a-broadcast", "9876543210"), "-15", where);
        expectText(await dlr(id, "not-a-number"), "-15", where);
        // Another account's broadcast is unknown to this one, and the reverse.
        const foreign = await legacy(
          t,
          `${prefix}/dlr`,
          { ...credentials(stranger), broadcastid: id, phonenumber: "9876543210" },
          method,
        );
        expectText(foreign, "-15", where);
        expectText(
          await legacy(t, `${prefix}/dlr`, { ...credentials(account), password: "wrong-one", broadcastid: id }, method),
          "-7",
          where,
        );
      }
    }
  });

  // SQLite answered -15, [] and -7 here; PostgreSQL -8 unnamed (its text cannot hold a NUL).
  it("a NUL in a broadcast id, a sender_id or a username answers the same on both engines", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const id = expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(account)), account);
    for (const method of METHODS) {
      const dlr = await legacy(
        t,
        "/httpapi/dlr",
        { ...credentials(account), broadcastid: `${id}\u0000`, phonenumber: "9876543210" },
        method,
      );
      expectText(dlr, "-15", `dlr ${method}`);
      const mis = await legacy(t, "/httpapi/mis", { ...credentials(account), sender_id: "SW\u0000" }, method);
      expectText(mis, "-8", `mis ${method}`);
      expect(mis.headers.get("x-error-message"), method).toContain("sender_id");
      // Refused before the password check, as the console's sign-in refuses it.
      const login = { username: `${account.username}\u0000`, password: account.password };
      const credits = await legacy(t, "/api/getcredits", login, method);
      expectText(credits, "-8", `getcredits ${method}`);
      expect(credits.headers.get("x-error-message"), method).toContain("username");
      const xml = await legacy(t, "/xmlapi/send", { ...login, xmlstring: "<pushsms/>" }, method);
      expectText(xml, "-8", `xml ${method}`);
    }
  });

  it("dlr with date=YYYYMMDD reads the day in the account's time zone", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    // UTC+14: the local day differs from the UTC day for ten hours of every day.
    const zone = "Pacific/Kiritimati";
    await operatorCall(t, operator, "PATCH", `/accounts/${account.username}`, { time_zone: zone });
    const id = expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(account)), account);
    await waitForFinal(t, account, id);
    const today = DateTime.now().setZone(zone);
    // The broadcast id carries the account-local day too.
    expect(id.split("_")[1]).toBe(today.toFormat("yyyyMMdd"));

    for (const prefix of PREFIXES) {
      const dlr = (date: string | undefined) =>
        legacy(t, `${prefix}/dlr`, { ...credentials(account), broadcastid: id, phonenumber: "9876543210", date });
      expectText(await dlr(today.toFormat("yyyyMMdd")), "delivered", prefix);
      expectText(await dlr(undefined), "delivered", prefix);
      expectText(await dlr(today.minus({ days: 1 }).toFormat("yyyyMMdd")), "-15", prefix);
      expectText(await dlr(today.plus({ days: 1 }).toFormat("yyyyMMdd")), "-15", prefix);
      for (const bad of [today.toFormat("yyyy-MM-dd"), "20261340", "yesterday"]) expectText(await dlr(bad), "-15", bad);
    }
  });

  it("templates lists the approved templates as a JSON array; addtemplate answers <user_id>_<template_id>, pending until approved", async () => {
    const t = gateway();
    const account = await buildAccount(t, { dltScrubbing: true });
    await operatorCall(t, operator, "POST", `/accounts/${account.username}/dlt/headers`, { header: "SWBRD" });
    await operatorCall(t, operator, "POST", `/accounts/${account.username}/dlt/entities`, { entity_id: ENTITY });
    for (const prefix of PREFIXES)
      expect(jsonList(await legacy(t, `${prefix}/templates`, credentials(account)))).toEqual([]);

    const created: string[] = [];
    for (const prefix of PREFIXES) {
      for (const method of METHODS) {
        const answer = await legacy(
          t,
          `${prefix}/addtemplate`,
          {
            ...credentials(account),
            sender_id: "SWBRD",
            template_name: `order ${prefix} ${method}`,
            // Each a text of its own: the same one asked for again answers the template it made.
            template_message: `Order {#var#} shipped via ${method}${prefix === "/httpapi" ? "" : " (secure)"}.`,
            dlt_template_id: "1107160000000000099",
            notes: "created by the test",
          },
          method,
        );
        expect(answer.status).toBe(200);
        expect(answer.headers.get("content-type")).toBe("text/plain; charset=utf-8");
        expect(answer.text).toMatch(new RegExp(`^${account.id}_\\d+$`));
        created.push(answer.text);
      }
    }
    expect(new Set(created).size).toBe(PREFIXES.length * METHODS.length);
    // Pending: neither listed nor usable for a transactional send.
    for (const prefix of PREFIXES)
      expect(jsonList(await legacy(t, `${prefix}/templates`, credentials(account)))).toEqual([]);
    const matching = sendParams(account, { message: "Order 42 shipped via GET.", dlt_entity_id: ENTITY });
    expectText(await legacy(t, "/httpapi/send", matching), "-8");

    const [first, ...rest] = created.map((id) => Number(id.split("_")[1]));
    await operatorCall(t, operator, "POST", `/templates/${first}/approve`);
    await operatorCall(t, operator, "POST", `/templates/${rest[0]}/reject`);
    for (const prefix of PREFIXES) {
      for (const method of METHODS) {
        const listed = await legacy(t, `${prefix}/templates`, credentials(account), method);
        expect(jsonList(listed, `${method} ${prefix}`)).toEqual([
          {
            template_id: created[0],
            template_name: "order /httpapi GET",
            template_message: "Order {#var#} shipped via GET.",
            dlt_template_id: "1107160000000000099",
            sender_id: "SWBRD",
            status: "approved",
          },
        ]);
      }
    }
    expectBroadcastId(await legacy(t, "/httpapi/send", matching), account);

    // Another account sees none of them.
    const other = await buildAccount(t);
    expect(jsonList(await legacy(t, "/httpapi/templates", credentials(other)))).toEqual([]);
    // A refusal stays a plain-text code.
    expectText(await legacy(t, "/httpapi/templates", { ...credentials(other), password: "wrong-one" }), "-7");
  });

  it("addtemplate refuses missing fields and a sender ID the account has not got approved, with the legacy codes", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await operatorCall(t, operator, "POST", `/accounts/${account.username}/sender-ids`, { sender: "PENDNG" });
    const other = await buildAccount(t, { sender: "OTHERS" });
    const valid = {
      ...credentials(account),
      sender_id: "SWBRD",
      template_name: "otp",
      template_message: "Your OTP is {#var#}.",
      dlt_template_id: "1107160000000000042",
    };
    for (const prefix of PREFIXES) {
      const add = (changes: Params) => legacy(t, `${prefix}/addtemplate`, { ...valid, ...changes });
      expectText(await add({ sender_id: undefined }), "-4", prefix);
      expectText(await add({ sender_id: " " }), "-4", prefix);
      expectText(await add({ template_message: undefined }), "-6", prefix);
      expectText(await add({ template_message: "  " }), "-6", prefix);
      expectText(await add({ template_name: undefined }), "-6", prefix);
      // Every parameter but notes is required: a missing DLT template ID is refused as the name is.
      const noDltId = await add({ dlt_template_id: undefined });
      expectText(noDltId, "-6", prefix);
      expect(noDltId.headers.get("x-error-message")).toContain("dlt_template_id");
      expectText(await add({ dlt_template_id: "  " }), "-6", prefix);
      expectText(await add({ dlt_template_id: "not a DLT id!" }), "-8", prefix);
      // The sender ID must be one the account has, approved: unknown -10, pending -19.
      expectText(await add({ sender_id: "NOPEX" }), "-10", prefix);
      expectText(await add({ sender_id: "OTHERS" }), "-10", `${prefix} another account's sender`);
      expectText(await add({ sender_id: "PROMOTIONAL" }), "-10", prefix);
      expectText(await add({ sender_id: "PENDNG" }), "-19", prefix);
      expectText(await add({ sender_id: "AB" }), "-8", `${prefix} not a header`);
      expectText(await add({ username: undefined, password: undefined }), "-1", prefix);
      expectText(await add({ password: undefined }), "-2", prefix);
      expectText(await add({ password: "wrong-one" }), "-7", prefix);
    }
    const rows = await t.db.store.db
      .selectFrom("templates")
      .select("id")
      .where("account_id", "=", account.id)
      .execute();
    expect(rows).toEqual([]);

    // The approved sender in any case, without notes: created, the sender kept as the header.
    const created = await legacy(t, "/httpapi/addtemplate", { ...valid, sender_id: " swbrd " });
    expect(created.text).toMatch(new RegExp(`^${account.id}_\\d+$`));
    const row = await t.db.store.db
      .selectFrom("templates")
      .select(["sender", "dlt_template_id", "notes", "status"])
      .where("account_id", "=", account.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ sender: "SWBRD", dlt_template_id: "1107160000000000042", notes: null, status: "pending" });
    // OTHERS is refused above only because it is another account's: its own account may use it.
    const theirs = await legacy(t, "/httpapi/addtemplate", { ...valid, ...credentials(other), sender_id: "OTHERS" });
    expect(theirs.text).toMatch(new RegExp(`^${other.id}_\\d+$`));
  });

  it("accountstatus answers active, inactive or blocked; blocked and inactive accounts still get their status", async () => {
    const t = gateway();
    const [active, inactive, blocked] = await Promise.all([buildAccount(t), buildAccount(t), buildAccount(t)]);
    await operatorCall(t, operator, "PATCH", `/accounts/${inactive.username}`, { status: "inactive" });
    await operatorCall(t, operator, "PATCH", `/accounts/${blocked.username}`, { status: "blocked" });
    for (const prefix of PREFIXES) {
      for (const method of METHODS) {
        const where = `${method} ${prefix}`;
        expectText(await legacy(t, `${prefix}/accountstatus`, credentials(active), method), "active", where);
        expectText(await legacy(t, `${prefix}/accountstatus`, { api_key: active.apiKey }, method), "active", where);
        expectText(await legacy(t, `${prefix}/accountstatus`, credentials(inactive), method), "inactive", where);
        expectText(await legacy(t, `${prefix}/accountstatus`, credentials(blocked), method), "blocked", where);
        expectText(await legacy(t, `${prefix}/accountstatus`, { apikey: blocked.apiKey }, method), "blocked", where);
        expectText(
          await legacy(t, `${prefix}/accountstatus`, { ...credentials(blocked), password: "wrong-one" }, method),
          "-7",
          where,
        );
      }
    }
    // A blocked account reads its status but cannot send.
    expectText(await legacy(t, "/httpapi/send", sendParams(blocked)), "-16");
    await operatorCall(t, operator, "PATCH", `/accounts/${blocked.username}`, { status: "active" });
    expectText(await legacy(t, "/httpapi/accountstatus", credentials(blocked)), "active");
    expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(blocked)), blocked);
  });

  it("mis lists the account's messages newest first, with limit, offset and a sender_id filter", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const other = await buildAccount(t);
    await operatorCall(t, operator, "POST", `/accounts/${account.username}/sender-ids`, {
      sender: "OTHERS",
      approve: true,
    });
    const ids: string[] = [];
    for (const [sender, message] of [
      ["SWBRD", "first"],
      ["SWBRD", "second"],
      ["OTHERS", "third"],
      ["SWBRD", "fourth"],
    ] as const) {
      ids.push(
        expectBroadcastId(
          await legacy(t, "/httpapi/send", sendParams(account, { sender_id: sender, message })),
          account,
        ),
      );
    }
    expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(other, { message: "not yours" })), other);

    for (const prefix of PREFIXES) {
      for (const method of METHODS) {
        const mis = async (query: Params) =>
          jsonList(await legacy(t, `${prefix}/mis`, { ...credentials(account), ...query }, method));
        const all = await mis({});
        expect(all.map((r) => r.message)).toEqual(["fourth", "third", "second", "first"]);
        expect(all[0]).toMatchObject({
          message_id: expect.stringMatching(/^q[0-9A-Z]{26}$/),
          broadcast_id: ids[3],
          mobile: "9876543210",
          sender_id: "SWBRD",
          message: "fourth",
          route: "transactional",
          status: expect.any(String),
          credits: 1,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        });
        expect((await mis({ limit: "2" })).map((r) => r.message)).toEqual(["fourth", "third"]);
        expect((await mis({ limit: "2", offset: "2" })).map((r) => r.message)).toEqual(["second", "first"]);
        expect((await mis({ offset: "4" })).map((r) => r.message)).toEqual([]);
        expect((await mis({ sender_id: "others" })).map((r) => [r.message, r.sender_id])).toEqual([
          ["third", "OTHERS"],
        ]);
        expect((await mis({ sender_id: "SWBRD", limit: "1", offset: "1" })).map((r) => r.message)).toEqual(["second"]);
        expect(await mis({ sender_id: "NOSUCH" })).toEqual([]);
        expect(await mis({ limit: "1000", offset: "100000000" })).toEqual([]);
        expect(await mis({ limit: "", offset: "" })).toHaveLength(4);
        // Nonsense paging is refused (-8, the header names the parameter), never read as the default.
        for (const [query, named] of [
          [{ limit: "abc" }, "limit"],
          [{ limit: "0" }, "limit"],
          [{ limit: "-3" }, "limit"],
          [{ limit: "1001" }, "limit"],
          [{ limit: "2.5" }, "limit"],
          [{ limit: "1e3" }, "limit"],
          [{ offset: "-3" }, "offset"],
          [{ offset: "x" }, "offset"],
          [{ offset: "100000001" }, "offset"],
          [{ offset: "99999999999999999999" }, "offset"],
        ] as const) {
          const refused = await legacy(t, `${prefix}/mis`, { ...credentials(account), ...query }, method);
          expect(refused.text, JSON.stringify(query)).toBe("-8");
          expect(refused.headers.get("x-error-message"), JSON.stringify(query)).toContain(`"${named}"`);
        }
      }
    }
    expectText(await legacy(t, "/httpapi/mis", { ...credentials(account), password: "wrong-one" }), "-7");
  });

  it("mis is the SMS API's report: voice calls in, WhatsApp and email out, every broadcast id one dlr finds", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100, voice: 100 } });
    await approveCallerIdFor({ store: t.db.store, clock: t.clock, actor: cliActor() }, account.username, CALLER);
    const sms = expectBroadcastId(
      await legacy(t, "/httpapi/send", sendParams(account, { message: "by SMS" })),
      account,
    );
    const voice = await placeCall(t, "GET", callParams(account, { text: "by voice" }));
    expect(voice.text).toMatch(new RegExp(`^${account.id}_\\d{8}_\\d+$`));
    // A WhatsApp message and an email as their families store them, newer than both.
    const now = Date.now();
    const row = { account_id: account.id, recipient: "919876543210", created_at: now + 1000 };
    await t.db.store.db
      .insertInto("messages")
      .values([
        messageRow({
          ...row,
          id: newQueueId(now),
          channel: "whatsapp",
          broadcast_id: "19",
          sender: "15550001234",
          body: "by WhatsApp",
          route: "whatsapp",
          wallet: "whatsapp",
        }),
        messageRow({
          ...row,
          id: newQueueId(now),
          channel: "email",
          broadcast_id: `${account.id}_20260101_000099`,
          recipient: "z@example.org",
          sender: "news@shop.example.com",
          body: "by email",
          route: "email",
          wallet: "email",
        }),
      ])
      .execute();

    for (const prefix of PREFIXES) {
      const listed = jsonList(await legacy(t, `${prefix}/mis`, credentials(account)), prefix);
      const byMessage = (rows: Record<string, unknown>[]) =>
        rows
          .map((r) => [r.message, r.route, r.broadcast_id, r.mobile])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      expect(byMessage(listed), prefix).toEqual([
        ["by SMS", "transactional", sms, "9876543210"],
        ["by voice", "voice", voice.text, "9876543210"],
      ]);
      // Paging counts only the report's rows.
      expect(jsonList(await legacy(t, `${prefix}/mis`, { ...credentials(account), offset: "1" }))).toHaveLength(1);
      expect(jsonList(await legacy(t, `${prefix}/mis`, { ...credentials(account), offset: "2" }))).toEqual([]);
      for (const record of listed) {
        const query = {
          ...credentials(account),
          broadcastid: String(record.broadcast_id),
          phonenumber: String(record.mobile),
        };
        expect(["delivered", "submitted", "failed"], String(record.message)).toContain(
          (await legacy(t, `${prefix}/dlr`, query)).text,
        );
      }
    }
  });
});
