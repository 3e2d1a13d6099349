// The log of refusals (issue 38, item 3), on both engines, through the real server: one refused
// send of each family (v2, legacy, XML, email, voice; the SMPP server's submit_sm with a real
// client) appears with the answer as that family wrote it, no stored field holds a credential,
// the filters and the cursor page through it, the operator's route lists every account's (an
// account key: 403), bad query parameters are 400s; then its bounds on a manual clock: the
// per-minute cap writes that many and counts the rest, and REFUSAL_LOG_DAYS prunes.
import { beforeAll, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { insertRefusals, type NewRefusal } from "../../../src/domain/refusals/index.js";
import { boundEsme, smppAccount, until } from "../../channels/smpp-server/client.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { legacy, pushsms, sendParams, xmlSend } from "../../helpers/legacy.js";

const LONG_TEXT = `Hello ${"x".repeat(300)}`;

const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });

async function refusalsOf(t: TestGateway, account: TestAccount, query = "") {
  const answer = await call(t, "GET", `/api/v2/refusals${query}`, { headers: bearer(account) });
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

async function storedRows(t: TestGateway) {
  return t.db.store.db.selectFrom("refusals").selectAll().execute();
}

describeEachEngine("the log of refusals", (engine) => {
  const gateway = useTestGateway(engine, { env: { SMPP_SERVER_PORT: "auto" } });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("records one refusal of every family with its dialect's answer, and no credential", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 100, voice: 100, email: 100 } });
    const v2 = await call(t, "POST", "/api/v2/sms/send", {
      headers: bearer(account),
      json: { sender_id: "SWBRD", recipient: "98765", message: LONG_TEXT },
    });
    expect(v2.status).toBe(422);
    const unknownKey = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: "Bearer sk_live_not_a_key_of_ours" },
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "who am I" },
    });
    expect(unknownKey.status).toBe(401);
    const get = await legacy(t, "/httpapi/send", sendParams(account, { phonenumber: "98765,12345" }));
    expect(get.text).toBe("-5");
    const xml = await xmlSend(t, pushsms(account, { sender: "NOSUCH", messages: [{ pno: "9876543210", msg: "xml" }] }));
    expect(xml.text).toMatch(/^-\d+$/);
    // Multipart, as a send with attachments comes: the family reads its fields, not the parser.
    const form = new FormData();
    for (const [name, value] of Object.entries({
      username: account.username,
      password: account.password,
      to: "not-an-address",
      subject: "Hi",
      text: "x",
    })) {
      form.set(name, value);
    }
    form.append("attachment", new Blob(["a,b\n"], { type: "text/csv" }), "data.csv");
    const emailAnswer = await fetch(`${t.url}/httpemailapi/v1/send`, { method: "POST", body: form });
    const email = { text: await emailAnswer.text() };
    expect(email.text).toMatch(/^-\d+$/);
    const voice = await legacy(t, "/voicecall/v1/send", { apikey: account.apiKey, to: "123", text: "call me" });
    expect(voice.text).toMatch(/^-?\d+$/);
    const client = await boundEsme(t, account);
    const submit = await client.submit({ source_addr: "SWBRD", destination_addr: "98765", short_message: "smpp hi" });
    expect(submit.command_status).toBe(0x0b);
    client.destroy();

    let page: { data: Array<Record<string, unknown>> } = { data: [] };
    await until(
      async () => {
        page = await refusalsOf(t, account);
        return page.data.length >= 6;
      },
      20_000,
      "six refusals",
    );
    const byFamily = new Map(page.data.map((row) => [row.family, row]));
    expect([...byFamily.keys()].sort()).toEqual(["email", "legacy", "smpp", "v2", "voice", "xml"]);
    expect(byFamily.get("v2")).toMatchObject({
      operation: "POST /api/v2/sms/send",
      recipients: ["98765"],
      recipient_count: 1,
      sender: "SWBRD",
      text: LONG_TEXT.slice(0, 160),
      http_status: 422,
      code: "invalid_recipient",
      answer: "422 invalid_recipient",
      request_id: v2.body.error.request_id,
      address: "127.0.0.1",
    });
    expect(byFamily.get("legacy")).toMatchObject({
      operation: "GET /httpapi/send",
      recipients: ["98765", "12345"],
      recipient_count: 2,
      http_status: 200,
      code: "invalid_recipient",
      answer: "-5",
    });
    expect(byFamily.get("xml")).toMatchObject({ operation: "POST /xmlapi/send", sender: "NOSUCH", answer: xml.text });
    expect(byFamily.get("xml")!.recipients).toEqual(["9876543210"]);
    expect(byFamily.get("email")).toMatchObject({
      operation: "POST /httpemailapi/v1/send",
      recipients: ["not-an-address"],
      text: "x",
      answer: email.text,
    });
    expect(byFamily.get("voice")).toMatchObject({ recipients: ["123"], answer: voice.text });
    expect(byFamily.get("smpp")).toMatchObject({
      operation: "submit_sm",
      recipients: ["98765"],
      sender: "SWBRD",
      text: "smpp hi",
      http_status: null,
      code: "invalid_recipient",
      answer: "0x0000000B ESME_RINVDSTADR",
    });
    for (const row of page.data) expect(row.reason).not.toBe("");

    // The unauthenticated one is the operator's to see, with no account.
    await until(
      async () => (await storedRows(t)).some((row) => row.account_id === null),
      20_000,
      "the unauthenticated refusal",
    );
    const anonymous = await call(t, "GET", "/admin/api/refusals?account=-", { headers: bearer(operator) });
    expect(anonymous.body.data[0]).toMatchObject({ account: null, code: "unauthorized", answer: "401 unauthorized" });

    // No stored field holds a password, an API key or the SMPP password.
    const secrets = [account.password, account.apiKey, account.smppPassword, "sk_live_not_a_key_of_ours"];
    for (const row of await storedRows(t)) {
      const stored = JSON.stringify(row);
      for (const secret of secrets) expect(stored).not.toContain(secret);
    }
  });

  it("filters and pages, newest first, and refuses bad query parameters", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const base = Date.parse("2026-11-20T10:00:00Z");
    const rows: NewRefusal[] = Array.from({ length: 7 }, (_, i) => ({
      account_id: account.id,
      family: "v2",
      operation: "POST /api/v2/sms/send",
      recipients: i % 2 === 0 ? "919876543210,919800000001" : "919800000002",
      recipient_count: i % 2 === 0 ? 2 : 1,
      sender: "SWBRD",
      text: `t${i}`,
      http_status: 422,
      code: i < 3 ? "dlt_template_mismatch" : "invalid_recipient",
      answer: "422 x",
      reason: "because",
      request_id: `req-${i}`,
      address: "10.0.0.1",
      created_at: base + i * 3_600_000,
    }));
    await insertRefusals(t.db.store, rows);
    const all = await refusalsOf(t, account);
    expect(all.data.map((row: { request_id: string }) => row.request_id)).toEqual(
      ["6", "5", "4", "3", "2", "1", "0"].map((i) => `req-${i}`),
    );
    expect((await refusalsOf(t, account, "?code=dlt_template_mismatch")).data).toHaveLength(3);
    expect((await refusalsOf(t, account, "?recipient=%2B919800000002")).data).toHaveLength(3);
    expect((await refusalsOf(t, account, "?recipient=919876543210")).data).toHaveLength(4);
    expect((await refusalsOf(t, account, "?recipient=98765")).data).toHaveLength(0);
    const window = await refusalsOf(t, account, "?from=2026-11-20T11:00:00Z&to=2026-11-20T13:00:00Z");
    expect(window.data.map((row: { text: string }) => row.text)).toEqual(["t2", "t1"]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: Array<{ text: string }>; meta: { limit: number; next_cursor: string | null } } =
        await refusalsOf(t, account, `?per_page=3${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.meta.limit).toBe(3);
      seen.push(...page.data.map((row) => row.text));
      cursor = page.meta.next_cursor;
    } while (cursor);
    expect(seen).toEqual(["t6", "t5", "t4", "t3", "t2", "t1", "t0"]);
    expect((await refusalsOf(t, account, "?limit=2")).data).toHaveLength(2);

    // Another account sees none of them.
    expect((await refusalsOf(t, await buildAccount(t))).data).toEqual([]);

    for (const [query, field] of [
      ["?from=yesterday", "from"],
      ["?from=2026-11-21&to=2026-11-20", "to"],
      ["?code=not%20a%20code", "code"],
      ["?cursor=nope", "cursor"],
      ["?limit=0", "limit"],
      ["?limit=501", "limit"],
      ["?limit=2&per_page=2", "per_page"],
    ] as const) {
      const refused = await call(t, "GET", `/api/v2/refusals${query}`, { headers: bearer(account) });
      expect(refused.status, query).toBe(400);
      expect(refused.body.error, query).toMatchObject({ code: "invalid_request", field });
    }
    const unknown = await call(t, "GET", "/api/v2/refusals?colour=red", { headers: bearer(account) });
    expect(unknown.status).toBe(400);
  });

  it("reads at most 10,000 rows a page: a rare match is a short page with a cursor", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const row = (i: number, code: string): NewRefusal => ({
      account_id: account.id,
      family: "v2",
      operation: "POST /api/v2/sms/send",
      recipients: "9876543210",
      recipient_count: 1,
      sender: null,
      text: `r${i}`,
      http_status: 422,
      code,
      answer: `422 ${code}`,
      reason: "because",
      request_id: `scan-${i}`,
      address: "10.0.0.4",
      created_at: Date.now(),
    });
    // The two oldest match; 10,010 newer ones do not.
    await insertRefusals(t.db.store, [row(0, "dnd_blocked"), row(1, "dnd_blocked")]);
    await insertRefusals(
      t.db.store,
      Array.from({ length: 10_010 }, (_, i) => row(i + 2, "invalid_recipient")),
    );
    const first = await refusalsOf(t, account, "?code=dnd_blocked");
    expect(first.data).toEqual([]);
    expect(first.meta.next_cursor).not.toBeNull();
    const second = await refusalsOf(t, account, `?code=dnd_blocked&cursor=${first.meta.next_cursor}`);
    expect(second.data.map((r: { text: string }) => r.text)).toEqual(["r1", "r0"]);
    expect(second.meta.next_cursor).toBeNull();
    // Without a filter, a page is read directly.
    expect((await refusalsOf(t, account, "?limit=3")).data.map((r: { text: string }) => r.text)).toEqual([
      "r10011",
      "r10010",
      "r10009",
    ]);
  });

  it("lists every account's for the operator, and is the operator's only", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await insertRefusals(t.db.store, [
      {
        account_id: account.id,
        family: "legacy",
        operation: "GET /httpapi/send",
        recipients: "9876543210",
        recipient_count: 1,
        sender: "SWBRD",
        text: "hi",
        http_status: 200,
        code: "dlt_header_not_whitelisted",
        answer: "-32",
        reason: "not a white-listed DLT header",
        request_id: "req-op",
        address: "10.0.0.2",
        created_at: Date.now(),
      },
    ]);
    const listed = await call(t, "GET", `/admin/api/refusals?account=${account.username}`, {
      headers: bearer(operator),
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ account: account.username, answer: "-32", code: "dlt_header_not_whitelisted" }),
    ]);
    const filtered = await call(t, "GET", "/admin/api/refusals?code=dlt_header_not_whitelisted&limit=500", {
      headers: bearer(operator),
    });
    expect(filtered.body.data.map((row: { request_id: string }) => row.request_id)).toContain("req-op");
    const asAccount = await call(t, "GET", "/admin/api/refusals", { headers: bearer(account) });
    expect(asAccount.status).toBe(403);
    expect(asAccount.body.error.code).toBe("operator_only");
    const nobody = await call(t, "GET", "/admin/api/refusals?account=nobody-here", { headers: bearer(operator) });
    expect(nobody.status).toBe(404);
    const bad = await call(t, "GET", "/admin/api/refusals?from=soon", { headers: bearer(operator) });
    expect(bad.status).toBe(400);
  });
});

describeEachEngine("the log of refusals' bounds", (engine) => {
  // Five seconds into a minute that never ends unless the test moves it.
  const clock = new ManualClock("2026-10-01T06:30:05Z");
  const gateway = useTestGateway(engine, {
    clock,
    env: { REFUSAL_LOG_PER_ACCOUNT_PER_MINUTE: "5", REFUSAL_LOG_DAYS: "30" },
  });

  const dropped = async (t: TestGateway) =>
    (await t.gateway.ctx.metrics.refusalsDropped.get()).values
      .filter((value) => value.labels.reason === "per_minute")
      .reduce((sum, value) => sum + value.value, 0);

  it("writes REFUSAL_LOG_PER_ACCOUNT_PER_MINUTE a minute and counts the rest", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const before = await dropped(t);
    const refuse = () =>
      call(t, "POST", "/api/v2/sms/send", {
        headers: bearer(account),
        json: { sender_id: "SWBRD", recipient: "98765", message: "flood" },
      });
    for (let i = 0; i < 8; i++) expect((await refuse()).status).toBe(422);
    await t.gateway.ctx.refusals.flush();
    expect(await dropped(t)).toBe(before + 3);
    expect((await refusalsOf(t, account)).data).toHaveLength(5);
    // The next minute takes five more.
    clock.advance(60_000);
    expect((await refuse()).status).toBe(422);
    await t.gateway.ctx.refusals.flush();
    expect((await refusalsOf(t, account)).data).toHaveLength(6);
    expect(await dropped(t)).toBe(before + 3);
  });

  it("prunes refusals older than REFUSAL_LOG_DAYS", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const row = (created_at: number, request_id: string): NewRefusal => ({
      account_id: account.id,
      family: "v2",
      operation: "POST /api/v2/sms/send",
      recipients: null,
      recipient_count: 0,
      sender: null,
      text: null,
      http_status: 400,
      code: "missing_message",
      answer: "400 missing_message",
      reason: "Missing message text.",
      request_id,
      address: "10.0.0.3",
      created_at,
    });
    const now = clock.now().getTime();
    await insertRefusals(t.db.store, [row(now - 31 * 86_400_000, "old"), row(now - 29 * 86_400_000, "kept")]);
    // Housekeeping's next round past a minute of the clock prunes.
    clock.advance(61_000);
    await until(
      async () => !(await refusalsOf(t, account)).data.some((r: { request_id: string }) => r.request_id === "old"),
      20_000,
      "the old refusal pruned",
    );
    expect((await refusalsOf(t, account)).data.map((r: { request_id: string }) => r.request_id)).toEqual(["kept"]);
  });
});
