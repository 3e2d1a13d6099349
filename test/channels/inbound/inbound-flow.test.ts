import { beforeAll, expect, it } from "vitest";
import { BROADCAST_ID } from "../../../src/base/core/ids.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { legacy, sendParams } from "../../helpers/legacy.js";
import { milli, subAccount } from "../../helpers/resellers.js";
import { balanceOf, FAST_SIMULATOR, sendSms, statusOf, waitForStatus } from "../../helpers/sms.js";
import { approvedKeyword, assignNumber, expectError, inject, operatorCall, v2 } from "./helpers.js";

/** "band" is configured; "END" (a default word) is not, so the setting is what decides. */
const OPT_OUT_WORDS = "STOP, Unsubscribe ,band";

async function inboundCount(t: TestGateway): Promise<number> {
  const row = await t.db.store.db
    .selectFrom("inbound_messages")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function suppressed(t: TestGateway, operator: TestAccount, account: TestAccount): Promise<string[]> {
  const listed = await operatorCall(t, operator, "GET", `/admin/api/accounts/${account.username}/suppressions`);
  expect(listed.status).toBe(200);
  return listed.body.data.map((s: { number: string }) => s.number).sort();
}

async function metric(t: TestGateway, line: string): Promise<number> {
  const text = (await call(t, "GET", "/metrics")).text;
  const found = text.split("\n").find((l) => l.startsWith(line));
  return found ? Number(found.slice(line.length).trim()) : 0;
}

function promo(t: TestGateway, account: TestAccount, recipient: string) {
  return sendSms(t, account, {
    sender_id: "PROMOTIONAL",
    recipient,
    message: "Sale: 20% off today",
    route: "promotional",
  });
}

describeEachEngine("inbound SMS: keywords, replies, opt-out", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, OPT_OUT_WORDS } });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("stores an inbound message, matches the first word case-insensitively, and sends and charges the static reply", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 1000 } });
    await assignNumber(t, operator, account, "+91 92205 01001");
    const reply = `Store hours: 9 to 5. ${"More details on the website. ".repeat(6)}`;
    const keywordId = await approvedKeyword(t, operator, account, {
      key: "info",
      response_type: "static",
      static_message: reply,
    });

    const matched = await inject(t, operator, { to: "919220501001", from: "+91 98765 43210", message: "info please" });
    expect(matched.status, matched.text).toBe(201);
    expect(matched.body.data).toEqual({
      id: expect.any(Number),
      account: account.username,
      from: "9876543210",
      to: "9220501001",
      message: "info please",
      received_at: expect.stringMatching(/Z$/),
      duplicate: false,
      keyword_id: keywordId,
      keyword: "INFO",
      reply_message_id: expect.stringMatching(/^q[0-9A-Z]{26}$/),
      opt_out: null,
      reply: { status: "sent", message_id: matched.body.data.reply_message_id },
    });

    // The reply is an SMS like any other: from the virtual number to the sender, 2 segments, 2 credits.
    const report = await waitForStatus(t, account, matched.body.data.reply_message_id);
    expect(report).toMatchObject({
      mobile: "9876543210",
      sender_id: "9220501001",
      status: "delivered",
      route: "transactional",
      segments: 2,
      credit: 2,
    });
    expect(await balanceOf(t, account)).toBe(998);
    const ledger = await operatorCall(t, operator, "GET", `/admin/api/accounts/${account.username}/ledger?limit=1`);
    expect(ledger.body.data[0]).toMatchObject({ kind: "debit", amount: -2, ref: report.broadcast_id, wallet: "sms" });

    for (const [message, matches] of [
      ["INFO", true],
      ["  Info, thanks", true],
      ["please info", false],
      ["information", false],
      ["", false],
    ] as const) {
      const answer = await inject(t, operator, { to: "9220501001", from: "9876543211", message });
      expect(answer.status, answer.text).toBe(201);
      expect({ message, keyword: answer.body.data.keyword }).toEqual({ message, keyword: matches ? "INFO" : null });
      expect(answer.body.data.reply.status).toBe(matches ? "sent" : "none");
    }
    const detail = await v2(t, account, "GET", `/keywords/${keywordId}`);
    expect(detail.body.data.received_total).toBe(3);
    expect(detail.body.data.received.map((r: { message: string }) => r.message)).toEqual([
      "  Info, thanks",
      "INFO",
      "info please",
    ]);
    expect((await v2(t, account, "GET", "/inbound")).body.meta.total).toBe(6);
    expect(await balanceOf(t, account)).toBe(994);
  });

  it("matches only the account's approved keywords; a none keyword records without replying", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await assignNumber(t, operator, account, "9220501002");
    const pending = await v2(t, account, "POST", "/keywords", { key: "LATER", response_type: "none" });
    const rejected = await v2(t, account, "POST", "/keywords", {
      key: "NOPE",
      response_type: "static",
      static_message: "never sent",
    });
    await operatorCall(t, operator, "POST", `/admin/api/keywords/${rejected.body.data.id}/reject`);
    const poll = await approvedKeyword(t, operator, account, { key: "POLL", response_type: "none" });
    const other = await buildAccount(t);
    await approvedKeyword(t, operator, other, { key: "OTHER", response_type: "static", static_message: "not yours" });

    const results: Record<string, unknown> = {};
    for (const message of ["later", "nope", "poll yes", "other"]) {
      const answer = await inject(t, operator, { to: "9220501002", from: "9876543212", message });
      results[message] = [answer.body.data.keyword_id, answer.body.data.reply.status];
    }
    expect(results).toEqual({
      later: [null, "none"],
      nope: [null, "none"],
      "poll yes": [poll, "none"],
      other: [null, "none"],
    });
    expect(pending.body.data.status).toBe("pending");
    expect(await balanceOf(t, account)).toBe(1000);
  });

  it("stores the inbound and skips the reply when the account has no credits, or the sender is no Indian mobile", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 0 } });
    await assignNumber(t, operator, account, "9220501003");
    await approvedKeyword(t, operator, account, { key: "INFO", response_type: "static", static_message: "Hello!" });
    const before = await metric(t, 'switchboard_keyword_replies_total{outcome="insufficient_credits"}');

    const broke = await inject(t, operator, { to: "9220501003", from: "9876543213", message: "info" });
    expect(broke.status, broke.text).toBe(201);
    expect(broke.body.data).toMatchObject({ keyword: "INFO", reply_message_id: null });
    expect(broke.body.data.reply).toEqual({
      status: "skipped",
      reason: "insufficient_credits",
      message: expect.any(String),
    });
    expect(await metric(t, 'switchboard_keyword_replies_total{outcome="insufficient_credits"}')).toBe(before + 1);

    await operatorCall(t, operator, "POST", `/admin/api/accounts/${account.username}/credits`, {
      wallet: "sms",
      amount: 10,
    });
    const foreign = await inject(t, operator, { to: "9220501003", from: "+1 415 555 2671", message: "INFO" });
    expect(foreign.body.data).toMatchObject({ from: "14155552671", keyword: "INFO", reply_message_id: null });
    expect(foreign.body.data.reply).toMatchObject({ status: "skipped", reason: "not_a_mobile" });

    const inbox = await v2(t, account, "GET", "/inbound");
    expect(
      inbox.body.data.map((e: { from: string; reply_message_id: string | null }) => [e.from, e.reply_message_id]),
    ).toEqual([
      ["14155552671", null],
      ["9876543213", null],
    ]);
    expect(await balanceOf(t, account)).toBe(10);
  });

  it("skips the reply, charging no level, when a parent account is not active (decision 0148)", async () => {
    const t = gateway();
    const parent = await buildAccount(t, { credits: { sms: 1000 } });
    const sub = await subAccount(t, parent, {}, { sms: 50 });
    await assignNumber(t, operator, sub, "9220501009");
    await approvedKeyword(t, operator, sub, { key: "INFO", response_type: "static", static_message: "Hello!" });
    const blocked = await operatorCall(t, operator, "PATCH", `/admin/api/accounts/${parent.username}`, {
      status: "blocked",
    });
    expect(blocked.status, blocked.text).toBe(200);

    const answer = await inject(t, operator, { to: "9220501009", from: "9876543219", message: "info" });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.data).toMatchObject({ keyword: "INFO", reply_message_id: null });
    expect(answer.body.data.reply).toMatchObject({ status: "skipped", reason: "account_inactive" });
    // Its balance calls are refused while the parent is blocked: the ledgers, read directly.
    expect(await milli(t, sub.id)).toBe(50_000);
    expect(await milli(t, parent.id)).toBe(1_000_000);

    await operatorCall(t, operator, "PATCH", `/admin/api/accounts/${parent.username}`, { status: "active" });
    const restored = await inject(t, operator, { to: "9220501009", from: "9876543219", message: "info" });
    expect(restored.body.data.reply_message_id, restored.text).not.toBeNull();
  });

  it("STOP puts the sender on the suppression list: promotional sends leave it out, transactional ones do not; START takes it off", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await assignNumber(t, operator, account, "9220501004");
    const number = "9876510011";
    const other = "9876510002";
    await operatorCall(t, operator, "PATCH", `/admin/api/accounts/${account.username}`, { promo_sender_enabled: true });

    // A send before the STOP fills the send path's cache of the account's (empty) list.
    expect((await promo(t, account, number)).status).toBe(200);

    const stop = await inject(t, operator, {
      to: "9220501004",
      from: `+91${number}`,
      message: "Stop sending me these",
    });
    expect(stop.body.data).toMatchObject({ opt_out: "added", keyword: null, reply: { status: "none" } });
    expect(await suppressed(t, operator, account)).toEqual([number]);

    const refused = await promo(t, account, number);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body).toMatchObject({ success: false, error: { code: "recipient_opted_out", legacy_code: -11 } });
    const ps = await sendSms(t, account, { sender_id: "SWBRD", recipient: number, message: "x", route: "PS" });
    expect(ps.body.error?.code, ps.text).toBe("recipient_opted_out");

    // Several numbers: the opted-out one is left out, the others go.
    const broadcast = await legacy(
      t,
      "/httpapi/send",
      sendParams(account, { route: "P", phonenumber: `${number},${other},9876510003` }),
    );
    expect(broadcast.text).toMatch(BROADCAST_ID);
    const messages = await statusOf(t, account, broadcast.text);
    expect(messages.body.data.messages.map((m: { mobile: string }) => m.mobile).sort()).toEqual([other, "9876510003"]);
    expect((await legacy(t, "/httpapi/send", sendParams(account, { route: "P", phonenumber: number }))).text).toBe(
      "-11",
    );

    // The policy tells each refused recipient why.
    const principal = await t.gateway.ctx.authenticator.byApiKey(account.apiKey);
    const decision = await t.gateway.ctx.smsPolicy.decide(principal, {
      senderId: "SWBRD",
      recipients: [number, other, "12345"],
      message: "Sale",
      route: "promotional",
    });
    expect(decision.order.drafts.map((d) => d.recipient)).toEqual([other]);
    expect(decision.rejected.map((r) => [r.recipient, r.error.code])).toEqual([
      ["12345", "invalid_recipient"],
      [number, "recipient_opted_out"],
    ]);

    const otp = await sendSms(t, account, { sender_id: "SWBRD", recipient: number, message: "Your OTP is 4821" });
    expect(otp.status, "transactional SMS still reaches an opted-out number").toBe(200);

    const again = await inject(t, operator, { to: "9220501004", from: number, message: "STOP" });
    expect(again.body.data.opt_out).toBe("already");
    const notStart = await inject(t, operator, { to: "9220501004", from: number, message: "start the sale" });
    expect(notStart.body.data.opt_out).toBeNull();
    expect(await suppressed(t, operator, account)).toEqual([number]);

    const start = await inject(t, operator, { to: "9220501004", from: number, message: " Start! " });
    expect(start.body.data.opt_out).toBe("removed");
    expect(await suppressed(t, operator, account)).toEqual([]);
    expect((await promo(t, account, number)).status).toBe(200);
    const startAgain = await inject(t, operator, { to: "9220501004", from: number, message: "START" });
    expect(startAgain.body.data.opt_out).toBe("not_listed");

    // The list is the account's: another account still reaches the number.
    const stranger = await buildAccount(t);
    await inject(t, operator, { to: "9220501004", from: number, message: "stop" });
    expect((await promo(t, stranger, number)).status).toBe(200);
  });

  it("reads the opt-out words from OPT_OUT_WORDS", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await assignNumber(t, operator, account, "9220501005");
    const outcomes: Record<string, unknown> = {};
    for (const [from, message] of [
      ["9876520001", "band karo"],
      ["9876520002", "UNSUBSCRIBE"],
      ["9876520003", "end"],
      ["9876520004", "quit"],
    ]) {
      outcomes[message!] = (
        await inject(t, operator, { to: "9220501005", from: from!, message: message! })
      ).body.data.opt_out;
    }
    expect(outcomes).toEqual({ "band karo": "added", UNSUBSCRIBE: "added", end: null, quit: null });
    expect(await suppressed(t, operator, account)).toEqual(["9876520001", "9876520002"]);
  });

  it("stores a re-delivered inbound message once, and acts on it once", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await assignNumber(t, operator, account, "9220501006");
    await approvedKeyword(t, operator, account, { key: "JOIN", response_type: "static", static_message: "Welcome!" });
    const body = { to: "9220501006", from: "9876543214", message: "join", upstream_id: "CARRIER-77" };
    const first = await inject(t, operator, body);
    expect(first.status).toBe(201);
    const second = await inject(t, operator, body);
    expect(second.status, second.text).toBe(200);
    expect(second.body.data).toMatchObject({
      id: first.body.data.id,
      duplicate: true,
      reply_message_id: first.body.data.reply_message_id,
      reply: null,
      // The stored message as it was: its keyword named, as the first answer named it.
      keyword_id: first.body.data.keyword_id,
      keyword: "JOIN",
    });
    const simulated = t.gateway.workers!.simulator;
    await simulated.generateInbound({ to: "9220501006", from: "9876543214", message: "join", upstreamId: "SIM-9" });
    await simulated.generateInbound({ to: "9220501006", from: "9876543214", message: "join", upstreamId: "SIM-9" });
    // The same upstream id from another connector is another message.
    await simulated.generateInbound({
      to: "9220501006",
      from: "9876543214",
      message: "join",
      upstreamId: "CARRIER-77",
    });

    const inbox = await v2(t, account, "GET", "/inbound");
    expect(inbox.body.meta.total).toBe(3);
    expect(await balanceOf(t, account)).toBe(997);
  });

  it("drops a message to an unassigned number: 404 at the operator endpoint, logged and counted from a connector", async () => {
    const t = gateway();
    const before = await inboundCount(t);
    const unknownBefore = await metric(t, 'switchboard_inbound_messages_total{outcome="unknown_number"}');
    expectError(
      await inject(t, operator, { to: "9220509999", from: "9876543215", message: "hello" }),
      404,
      "not_found",
    );
    expectError(await inject(t, operator, { to: "no digits", from: "9876543215", message: "hello" }), 404, "not_found");
    await t.gateway.workers!.simulator.generateInbound({ to: "5550000", from: "9876543215", message: "hello" });
    expect(await inboundCount(t)).toBe(before);
    expect(await metric(t, 'switchboard_inbound_messages_total{outcome="unknown_number"}')).toBe(unknownBefore + 3);

    const account = await buildAccount(t);
    await assignNumber(t, operator, account, "9220501007");
    expectError(
      await inject(t, operator, { to: "9220501007", from: "unknown", message: "hi" }),
      400,
      "invalid_request",
    );
    expectError(
      await inject(t, operator, { to: "9220501007", from: "9876543215", message: "hi", received_at: "yesterday" }),
      400,
      "invalid_request",
    );
    expect(await inboundCount(t)).toBe(before);
  });

  it("takes inbound messages from the simulated carrier; recipient 0005 answers a keyword reply with STOP", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await assignNumber(t, operator, account, "9220501008");
    await approvedKeyword(t, operator, account, {
      key: "DEALS",
      response_type: "static",
      static_message: "Reply STOP to opt out.",
    });

    await t.gateway.workers!.simulator.generateInbound({ to: "+919220501008", from: "9876500005", message: "deals" });
    const inbox = await v2(t, account, "GET", "/inbound");
    expect(inbox.body.data).toEqual([
      expect.objectContaining({ from: "9876500005", to: "9220501008", keyword: "DEALS" }),
    ]);
    const replyId = inbox.body.data[0].reply_message_id;
    expect(replyId).toMatch(/^q/);
    await waitForStatus(t, account, replyId);

    const deadline = Date.now() + 10_000;
    while ((await suppressed(t, operator, account)).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await suppressed(t, operator, account)).toEqual(["9876500005"]);
    const stop = (await v2(t, account, "GET", "/inbound")).body.data[0];
    expect(stop).toMatchObject({ from: "9876500005", to: "9220501008", message: "STOP", keyword: null });
    const refused = await promo(t, account, "9876500005");
    expect([refused.status, refused.body.error?.code]).toEqual([422, "recipient_opted_out"]);
  });
});
