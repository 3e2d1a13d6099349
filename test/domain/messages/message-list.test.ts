// GET /api/v2/messages through a real gateway: every channel's messages of the calling account,
// newest first, each row what the status call answers; filters; a cursor that neither repeats
// nor skips a row while messages keep arriving; bad filters answered 400 naming the parameter.
// The clock is manual, so many messages share one created_at and the id must break the ties.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { addEmailDomain } from "../../../src/channels/email/domains.js";
import { approveCallerIdFor } from "../../../src/channels/voice/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { SCAN_BUDGET } from "../../../src/domain/messages/index.js";
import { postEmail } from "../../channels/email/helpers.js";
import { CALLER, callParams, placeCall } from "../../channels/voice/helpers.js";
import { connectSimulatedWhatsApp } from "../../channels/whatsapp/helpers.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { messageRow } from "../../helpers/message-row.js";
import { keyOf, sendSms, statusOf } from "../../helpers/sms.js";

function list(t: TestGateway, account: TestAccount, query: Record<string, string | number> = {}) {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  return call(t, "GET", `/api/v2/messages?${search}`, { headers: keyOf(account) });
}

/** Every row of the list, following next_cursor; `between` runs before each page after the first. */
async function everyRow(
  t: TestGateway,
  account: TestAccount,
  query: Record<string, string | number>,
  between: () => Promise<void> = async () => undefined,
) {
  // biome-ignore lint/suspicious/noExplicitAny: rows are read field by field
  const rows: any[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  do {
    if (cursor) await between();
    const page = await list(t, account, { ...query, ...(cursor ? { cursor } : {}) });
    expect(page.status, page.text).toBe(200);
    rows.push(...page.body.data);
    pages.push(page.body.data.length);
    cursor = page.body.meta.next_cursor;
  } while (cursor);
  return { rows, pages };
}

async function until(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const send = (t: TestGateway, account: TestAccount, recipient: string, message = "hello") =>
  sendSms(t, account, { sender_id: "SWBRD", recipient, message });

describeEachEngine("GET /api/v2/messages", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, {
    clock,
    env: {
      // Reports come 5 to 15 s after the submit on the manual clock; the simulated call and
      // WhatsApp message stay where they are while the test compares them.
      SIMULATOR_LATENCY_MS: "10000",
      SIMULATOR_FAILURE_RATE: "0",
      VOICE_SIMULATOR_LATENCY_MS: "600000",
      WHATSAPP_SIMULATOR_LATENCY_MS: "600000",
    },
  });

  it("lists every channel's messages, newest first, each row as the status call answers it", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10, voice: 10, email: 10, whatsapp: 10 } });
    const deps = { store: t.db.store, clock: t.clock, actor: cliActor() };
    await approveCallerIdFor(deps, account.username, CALLER);
    await addEmailDomain(t.db.store.db, t.clock, account.id, "shop.example.com", { approve: true });
    await connectSimulatedWhatsApp(t, account.id);

    expect((await send(t, account, "9876543210", "sms text")).status).toBe(200);
    clock.advance(1_000);
    expect((await placeCall(t, "JSON", callParams(account, { to: "9876543211" }))).status).toBe(200);
    clock.advance(1_000);
    const email = await postEmail(t, {
      api_key: account.apiKey,
      from: "news@shop.example.com",
      to: "asha@example.org",
      subject: "Your order",
      html: "<p>Hello</p>",
    });
    expect(email.status, email.text).toBe(200);
    clock.advance(1_000);
    const whatsapp = await call(t, "POST", "/api/v2/whatsapp/send", {
      headers: keyOf(account),
      json: { to: "919876543212", template: "hello_world" },
    });
    expect(whatsapp.status, whatsapp.text).toBe(200);

    // The states the manual clock holds them in: the SMS and the call wait for their reports.
    const settled = ["sent", "delivered", "submitted", "submitted"];
    // The call's first status ("initiated") is written just after its submit: wait for it too.
    await until(async () => {
      const data = (await list(t, account)).body.data as Array<{ status: string; call?: { status: string | null } }>;
      return (
        JSON.stringify(data.map((r) => r.status)) === JSON.stringify(settled) && data[2]?.call?.status === "initiated"
      );
    }, "every message to reach its held state");
    const answer = await list(t, account);
    expect(answer.body).toMatchObject({ status: "success", meta: { limit: 50, next_cursor: null } });
    const rows = answer.body.data;
    expect(rows.map((r: { channel: string }) => r.channel)).toEqual(["whatsapp", "email", "voice", "sms"]);
    expect(rows.map((r: { mobile: string }) => r.mobile)).toEqual([
      "919876543212",
      "asha@example.org",
      "9876543211",
      "9876543210",
    ]);
    for (const row of rows) {
      const status = await statusOf(t, account, row.message_id);
      expect(row).toEqual(status.body.data);
    }
    expect(rows[3]).toMatchObject({ message: "sms text", sender_id: "SWBRD", credit: 1 });
    expect(rows[2].call).toMatchObject({ units: 1 });
    expect(rows[1].message).toBe("Your order");

    const voiceAndSms = await list(t, account, { channel: "sms,VOICE" });
    expect(voiceAndSms.body.data.map((r: { channel: string }) => r.channel)).toEqual(["voice", "sms"]);

    // Another account lists none of them, whatever it filters on.
    const stranger = await buildAccount(t);
    expect((await list(t, stranger)).body.data).toEqual([]);
    for (const row of rows) {
      expect((await list(t, stranger, { id: row.message_id })).body.data).toEqual([]);
      expect((await list(t, stranger, { broadcast_id: row.broadcast_id })).body.data).toEqual([]);
      expect((await list(t, stranger, { recipient: row.mobile })).body.data).toEqual([]);
    }
  });

  it("pages with a cursor that neither repeats nor skips while messages arrive", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 200 } });
    // A bulk job's messages share the created_at of its part; single sends share the frozen clock's.
    for (let i = 0; i < 5; i++) expect((await send(t, account, `98765${String(i).padStart(5, "0")}`)).status).toBe(200);
    const bulk = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: keyOf(account),
      json: {
        sender_id: "SWBRD",
        message: "bulk",
        recipients: Array.from({ length: 30 }, (_, i) => `97000${String(i).padStart(5, "0")}`),
      },
    });
    expect(bulk.status, bulk.text).toBe(200);
    await until(
      async () => (await list(t, account, { limit: 500 })).body.data.length === 35,
      "the bulk job's messages to be made",
    );
    const before = (await list(t, account, { limit: 500 })).body.data.map((r: { message_id: string }) => r.message_id);
    expect(new Set(before).size).toBe(35);

    let arrived = 0;
    const { rows, pages } = await everyRow(t, account, { limit: 7 }, async () => {
      // New messages sort before the position already reached: no later page may hold them.
      arrived += 1;
      expect((await send(t, account, `96000${String(arrived).padStart(5, "0")}`)).status).toBe(200);
    });
    expect(pages).toEqual([7, 7, 7, 7, 7]);
    expect(rows.map((r: { message_id: string }) => r.message_id)).toEqual(before);

    const now = (await list(t, account, { limit: 500 })).body.data;
    expect(now).toHaveLength(35 + arrived);
    // Newest first: the later arrivals lead, in reverse order of sending.
    expect(now.slice(0, arrived).map((r: { mobile: string }) => r.mobile)).toEqual(
      Array.from({ length: arrived }, (_, i) => `96000${String(arrived - i).padStart(5, "0")}`),
    );
  });

  it("filters by status, number, dates, broadcast, job and any id the status call takes", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    // 2026-11-23 in Asia/Kolkata (the account's zone) starts at 2026-11-22T18:30:00Z.
    clock.set("2026-11-22T18:00:00Z");
    const early = await send(t, account, "9876500010", "early");
    clock.set("2026-11-22T19:00:00Z");
    const failing = await send(t, account, "+91 98765-00001", "fails");
    const delivered = await send(t, account, "9876500011", "delivered");
    const bulk = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: keyOf(account),
      json: { sender_id: "SWBRD", message: "bulk", recipients: ["9700000011", "9700000012"] },
    });
    expect(bulk.status, bulk.text).toBe(200);
    const ids = [early, failing, delivered].map((r) => r.body.data.message_id as string);
    const count = async (status: string) => (await list(t, account, { status })).body.data.length;
    await until(async () => (await count("submitted,delivered,failed")) === 5, "every message to be submitted");
    clock.advance(60_000);
    await until(async () => (await count("delivered,failed")) === 5, "every message to be reported");

    const mobiles = async (query: Record<string, string | number>) => {
      const answer = await list(t, account, query);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.data.map((r: { mobile: string }) => r.mobile);
    };
    expect(await mobiles({ status: "failed" })).toEqual(["9876500001"]);
    expect(await mobiles({ status: "queued,submitted" })).toEqual([]);
    for (const written of ["9876500001", "+919876500001", "+91 98765-00001", "09876500001", "919876500001"]) {
      expect(await mobiles({ recipient: written })).toEqual(["9876500001"]);
    }
    // Without a zone, times are the account's (Asia/Kolkata): the 23rd starts at 18:30Z.
    expect(await mobiles({ to: "2026-11-22" })).toEqual(["9876500010"]);
    expect(await mobiles({ to: "2026-11-23T00:00" })).toEqual(["9876500010"]);
    expect(await mobiles({ from: "2026-11-23 00:00:00", to: "2026-11-23T00:31:00+05:30" })).toHaveLength(4);
    expect(await mobiles({ from: "2026-11-22T18:30:00Z", to: "2026-11-22T18:59:59Z" })).toEqual([]);
    expect(await mobiles({ from: "2026-11-23", channel: "sms", status: "delivered" })).toEqual([
      "9700000012",
      "9700000011",
      "9876500011",
    ]);

    const jobId = bulk.body.data.job_id;
    const batchId = bulk.body.data.batch_id;
    expect(await mobiles({ job_id: jobId })).toEqual(["9700000012", "9700000011"]);
    expect(await mobiles({ broadcast_id: batchId })).toEqual(["9700000012", "9700000011"]);
    expect(await mobiles({ id: batchId, recipient: "9700000011" })).toEqual(["9700000011"]);
    expect(await mobiles({ job_id: jobId + 1000 })).toEqual([]);

    const [first] = (await list(t, account, { id: ids[2]! })).body.data;
    expect(first).toMatchObject({ message_id: ids[2], mobile: "9876500011", status: "delivered" });
    expect(await mobiles({ id: first.vendor_message_id })).toEqual(["9876500011"]);
    expect(await mobiles({ id: early.body.data.broadcast_id })).toEqual(["9876500010"]);
    expect(await mobiles({ id: "no-such-vendor-id" })).toEqual([]);
  });

  it("answers a bad filter with 400 naming the parameter", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const cases: [Record<string, string>, string][] = [
      [{ channel: "fax" }, "channel"],
      [{ channel: "," }, "channel"],
      [{ status: "lost" }, "status"],
      [{ status: "dispatching" }, "status"],
      [{ from: "yesterday" }, "from"],
      [{ from: "2026-02-30" }, "from"],
      [{ to: "2026-11-22T24:00:00" }, "to"],
      [{ from: "2026-11-23", to: "2026-11-22" }, "to"],
      [{ job_id: "abc" }, "job_id"],
      [{ job_id: "0" }, "job_id"],
      [{ limit: "0" }, "limit"],
      [{ limit: "501" }, "limit"],
      [{ limit: "ten" }, "limit"],
      [{ cursor: "not-a-cursor" }, "cursor"],
      [{ cursor: Buffer.from("1:12:q\u0000").toString("base64url") }, "cursor"],
      [{ recipient: "98765\u000043210" }, "recipient"],
      [{ id: "1_20261122_000001", broadcast_id: "1_20261122_000002" }, "id"],
    ];
    for (const [query, field] of cases) {
      const answer = await list(t, account, query);
      expect(answer.status, JSON.stringify(query)).toBe(400);
      expect(answer.body, JSON.stringify(query)).toMatchObject({
        status: "error",
        error: { code: "invalid_request", field },
      });
      expect(answer.body.message).toContain(field);
    }
    // An unknown parameter is named, with what the list takes; a repeated one fails the schema.
    const unknown = await call(t, "GET", "/api/v2/messages?recipeint=9876543210", { headers: keyOf(account) });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ status: "error", error: { code: "invalid_request", field: "recipeint" } });
    expect(unknown.body.message).toBe(
      'Unknown query parameter "recipeint"; this endpoint takes: channel, status, recipient, from, to, broadcast_id, job_id, id, limit, per_page, cursor, subaccount.',
    );
    const repeated = await call(t, "GET", "/api/v2/messages?status=failed&status=delivered", {
      headers: keyOf(account),
    });
    expect(repeated.status).toBe(400);
    expect(repeated.body.message).toContain("status");
    // Without a key: 401, as every v2 call.
    expect((await call(t, "GET", "/api/v2/messages")).status).toBe(401);
  });

  it("takes the spec's per_page as its limit, and refuses both at once naming them", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    for (const recipient of ["9876543201", "9876543202", "9876543203"]) await send(t, account, recipient);
    const page = await list(t, account, { per_page: 2 });
    expect(page.status, page.text).toBe(200);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.meta).toEqual({ limit: 2, next_cursor: expect.any(String) });
    const rest = await list(t, account, { per_page: 2, cursor: page.body.meta.next_cursor });
    expect(rest.body.data).toHaveLength(1);
    const both = await list(t, account, { per_page: 2, limit: 2 });
    expect(both.status).toBe(400);
    expect(both.body.error).toMatchObject({ code: "invalid_request", field: "per_page" });
    expect(both.body.message).toContain('"limit" or "per_page"');
    expect((await list(t, account, { per_page: 501 })).body.error.field).toBe("per_page");
  });

  it("reads at most a budget of rows per page for a rare channel, and says where to go on", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const at = clock.now().getTime();
    // One call, older than a budget's worth of SMS: finding it takes two pages.
    const rows = [
      messageRow({ id: "q0VOICE0000000000000000000", account_id: account.id, channel: "voice", created_at: at - 1 }),
      ...Array.from({ length: SCAN_BUDGET + 10 }, (_, i) =>
        messageRow({
          id: `q1${String(i).padStart(25, "0")}`,
          account_id: account.id,
          status: "delivered",
          created_at: at,
        }),
      ),
    ];
    await t.db.store.transaction((trx) => t.db.store.insertMany(trx, "messages", rows));
    const first = await list(t, account, { channel: "voice" });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([]);
    expect(first.body.meta.next_cursor).toEqual(expect.any(String));
    const { rows: found, pages } = await everyRow(t, account, { channel: "voice" });
    expect(pages).toEqual([0, 1]);
    expect(found.map((r: { message_id: string }) => r.message_id)).toEqual(["q0VOICE0000000000000000000"]);
    // Without a channel or status filter every row read is listed: the pages are full.
    const all = await list(t, account, { limit: 500 });
    expect(all.body.data).toHaveLength(500);
  });
});
