// The Verify API on both engines: start → check, wrong codes, expiry, resend (cooldown and the
// escalation order), cancel, the list, concurrent checks, the code masked everywhere but the
// carrier's copy, refusals that charge nothing, and bad inputs.
import fs from "node:fs";
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { MASK_CHAR } from "../../../src/channels/verify/codes.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, operatorCall } from "../../helpers/legacy.js";
import { balanceOf, keyOf } from "../../helpers/sms.js";
import { advance, capturedCode, freshNumber, start, verifyAccount, verifyCall, verifyEnv } from "./helpers.js";

describeEachEngine("Verify API", (engine) => {
  const { env, captureFile } = verifyEnv();
  const gateway = useTestGateway(engine, { clock: new ManualClock("2026-11-22T06:30:00Z"), env });

  it("starts a verification, sends the code by SMS and approves the right code once", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    const before = await balanceOf(t, account);
    const started = await start(t, account, { recipient: freshNumber() });
    expect(started.body.data).toMatchObject({ status: "pending", channel: "sms" });
    expect(started.body.data.verification_id).toMatch(/^v[0-9A-Z]{26}$/);
    expect(Date.parse(started.body.data.expires_at) - t.clock.now().getTime()).toBe(600_000);
    expect(await balanceOf(t, account)).toBeLessThan(before);

    const id = started.body.data.verification_id;
    const shown = await verifyCall(t, account, "GET", `/${id}`);
    const code = await capturedCode(captureFile, shown.body.data.message_id);
    expect(code).toHaveLength(6);

    const wrong = await verifyCall(t, account, "POST", `/${id}/check`, {
      code: code === "000000" ? "111111" : "000000",
    });
    expect(wrong.body.data).toEqual({ status: "pending", attempts_left: 4 });
    const right = await verifyCall(t, account, "POST", `/${id}/check`, { code });
    expect(right.status, right.text).toBe(200);
    expect(right.body.data).toEqual({ status: "approved", attempts_left: 4 });
    const again = await verifyCall(t, account, "POST", `/${id}/check`, { code });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("verification_closed");
    expect((await verifyCall(t, account, "GET", `/${id}`)).body.data.status).toBe("approved");
  });

  it("denies a verification after VERIFY_MAX_ATTEMPTS wrong codes, even for the right one after", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    const id = (await start(t, account, { recipient: freshNumber(), code_length: 4 })).body.data.verification_id;
    const code = await capturedCode(captureFile, (await verifyCall(t, account, "GET", `/${id}`)).body.data.message_id);
    const other = code === "1234" ? "4321" : "1234";
    const left: number[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await verifyCall(t, account, "POST", `/${id}/check`, { code: other });
      left.push(answer.body.data.attempts_left);
      expect(answer.body.data.status).toBe(i < 4 ? "pending" : "denied");
    }
    expect(left).toEqual([4, 3, 2, 1, 0]);
    const late = await verifyCall(t, account, "POST", `/${id}/check`, { code });
    expect(late.body.data).toEqual({ status: "denied", attempts_left: 0 });
  });

  it("expires a verification at expiry_seconds", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    const id = (await start(t, account, { recipient: freshNumber(), expiry_seconds: 60 })).body.data.verification_id;
    const code = await capturedCode(captureFile, (await verifyCall(t, account, "GET", `/${id}`)).body.data.message_id);
    advance(t, 60_000);
    const late = await verifyCall(t, account, "POST", `/${id}/check`, { code });
    expect(late.body.data).toEqual({ status: "expired", attempts_left: 0 });
    const shown = await verifyCall(t, account, "GET", `/${id}`);
    expect(shown.body.data.status).toBe("expired");
    const resend = await verifyCall(t, account, "POST", `/${id}/resend`, {});
    expect(resend.status).toBe(409);
  });

  it("resends after the cooldown by the next channel of the account's order, the same code", async () => {
    const t = gateway();
    const account = await verifyAccount(t, { channels: ["sms", "voice"], caller: true });
    const id = (await start(t, account, { recipient: freshNumber() })).body.data.verification_id;
    const first = await verifyCall(t, account, "GET", `/${id}`);
    const code = await capturedCode(captureFile, first.body.data.message_id);

    const early = await verifyCall(t, account, "POST", `/${id}/resend`, {});
    expect(early.status).toBe(429);
    expect(early.body.error.code).toBe("verify_resend_too_soon");
    expect(Number(early.headers.get("retry-after"))).toBe(30);

    advance(t, 30_000);
    const resent = await verifyCall(t, account, "POST", `/${id}/resend`, {});
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body.data).toMatchObject({ channel: "voice", channels: ["sms", "voice"], status: "pending" });
    expect(resent.body.data.message_id).not.toBe(first.body.data.message_id);
    // The call's text is stored masked too.
    const call1 = await call(t, "GET", `/api/v2/messages/${resent.body.data.message_id}`, { headers: keyOf(account) });
    expect(call1.text).not.toContain(code.split("").join(" "));

    advance(t, 30_000);
    const named = await verifyCall(t, account, "POST", `/${id}/resend`, { channel: "sms" });
    expect(named.body.data.channel).toBe("sms");
    expect(await capturedCode(captureFile, named.body.data.message_id)).toBe(code);
    advance(t, 30_000);
    const whatsapp = await verifyCall(t, account, "POST", `/${id}/resend`, { channel: "whatsapp" });
    expect(whatsapp.status).toBe(422);
    expect(whatsapp.body.error.code).toBe("verify_channel_unavailable");

    expect((await verifyCall(t, account, "POST", `/${id}/check`, { code })).body.data.status).toBe("approved");
  });

  it("stays on SMS when the order's other channels cannot be used", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    const id = (await start(t, account, { recipient: freshNumber() })).body.data.verification_id;
    advance(t, 30_000);
    const resent = await verifyCall(t, account, "POST", `/${id}/resend`, {});
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body.data.channels).toEqual(["sms", "sms"]);
  });

  it("cancels a pending verification; a check of it then answers 409", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    const id = (await start(t, account, { recipient: freshNumber() })).body.data.verification_id;
    const cancelled = await verifyCall(t, account, "POST", `/${id}/cancel`);
    expect(cancelled.body.data.status).toBe("cancelled");
    const check = await verifyCall(t, account, "POST", `/${id}/check`, { code: "123456" });
    expect(check.status).toBe(409);
    expect((await verifyCall(t, account, "POST", `/${id}/cancel`)).status).toBe(409);
  });

  it("approves exactly one of 20 concurrent checks of the right code", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    const id = (await start(t, account, { recipient: freshNumber() })).body.data.verification_id;
    const code = await capturedCode(captureFile, (await verifyCall(t, account, "GET", `/${id}`)).body.data.message_id);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => verifyCall(t, account, "POST", `/${id}/check`, { code })),
    );
    const approved = answers.filter((a) => a.status === 200 && a.body.data.status === "approved");
    expect(approved).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
  });

  it("shows the code masked in the status answer, the list, the export and legacy mis; only the carrier's copy holds it", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    const recipient = freshNumber();
    const id = (await start(t, account, { recipient })).body.data.verification_id;
    const messageId = (await verifyCall(t, account, "GET", `/${id}`)).body.data.message_id;
    const code = await capturedCode(captureFile, messageId);
    const masked = MASK_CHAR.repeat(6);
    const status = await call(t, "GET", `/api/v2/sms/status/${messageId}`, { headers: keyOf(account) });
    expect(status.body.data.message).toContain(masked);
    const list = await call(t, "GET", `/api/v2/messages?recipient=${recipient}`, { headers: keyOf(account) });
    const exported = await call(t, "GET", `/api/v2/messages/export?format=jsonl&recipient=${recipient}`, {
      headers: keyOf(account),
    });
    const detail = await call(t, "GET", `/api/v2/messages/${messageId}`, { headers: keyOf(account) });
    const mis = await legacy(t, "/httpapi/mis", credentials(account));
    for (const answer of [status, list, exported, detail, mis]) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).not.toContain(code);
    }
    expect(list.text).toContain(masked);
    expect(exported.text).toContain(masked);
    expect(mis.text).toContain(masked);
    const row = await t.db.store.db
      .selectFrom("messages")
      .select("body")
      .where("id", "=", messageId)
      .executeTakeFirst();
    expect(row?.body).toContain(masked);
    const verification = await t.db.store.db
      .selectFrom("verifications")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    expect(JSON.stringify(verification)).not.toContain(code);
    expect(fs.readFileSync(captureFile, "utf8")).toContain(code);
  });

  it("lists verifications newest first with filters and a cursor", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    const recipient = freshNumber();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await start(t, account, { recipient })).body.data.verification_id);
    await verifyCall(t, account, "POST", `/${ids[0]}/cancel`);
    const page1 = await verifyCall(t, account, "GET", `?recipient=${recipient}&limit=2`);
    expect(page1.body.data.map((v: { verification_id: string }) => v.verification_id)).toEqual([ids[2], ids[1]]);
    const page2 = await verifyCall(
      t,
      account,
      "GET",
      `?recipient=${recipient}&limit=2&cursor=${page1.body.meta.next_cursor}`,
    );
    expect(page2.body.data.map((v: { verification_id: string }) => v.verification_id)).toEqual([ids[0]]);
    expect(page2.body.meta.next_cursor).toBeNull();
    const cancelled = await verifyCall(t, account, "GET", `?status=cancelled&recipient=${recipient}`);
    expect(cancelled.body.data).toHaveLength(1);
    expect((await verifyCall(t, account, "GET", "?status=nope")).status).toBe(400);
    const later = await verifyCall(t, account, "GET", `?recipient=${recipient}&from=2026-11-23T00:00:00Z`);
    expect(later.body.data).toEqual([]);
    const earlier = await verifyCall(t, account, "GET", `?recipient=${recipient}&to=2026-11-23T00:00:00Z`);
    expect(earlier.body.data).toHaveLength(3);
    expect((await verifyCall(t, account, "GET", "?from=yesterday")).status).toBe(400);
    // Another account sees none of them.
    const stranger = await verifyAccount(t);
    expect((await verifyCall(t, stranger, "GET", `/${ids[1]}`)).status).toBe(404);
  });

  it("refuses a start its channel's rules refuse, and charges nothing", async () => {
    const t = gateway();
    const account = await verifyAccount(t, { dltScrubbing: true });
    const before = await balanceOf(t, account);
    const recipient = freshNumber();
    const refused = await verifyCall(t, account, "POST", "", { recipient });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("dlt_template_mismatch");
    expect(await balanceOf(t, account)).toBe(before);
    expect((await verifyCall(t, account, "GET", `?recipient=${recipient}`)).body.data).toEqual([]);

    const poor = await verifyAccount(t, { credits: 0 });
    const unpaid = await verifyCall(t, poor, "POST", "", { recipient: freshNumber() });
    expect(unpaid.status).toBe(402);
    const bare = await buildAccount(t);
    const unset = await verifyCall(t, bare, "POST", "", { recipient: freshNumber() });
    expect(unset.status).toBe(422);
    expect(unset.body.error.code).toBe("verify_channel_unavailable");
  });

  it("limits starts to one recipient per hour", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    const recipient = freshNumber();
    for (let i = 0; i < 5; i++) await start(t, account, { recipient });
    const sixth = await verifyCall(t, account, "POST", "", { recipient });
    expect(sixth.status).toBe(429);
    expect(sixth.body.error.code).toBe("verify_recipient_limited");
    expect(Number(sixth.headers.get("retry-after"))).toBe(3600);
    advance(t, 3_600_000);
    await start(t, account, { recipient });
  });

  it("writes verification_approved, _denied and _expired events to the URLs set for them", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    const urls = {
      verification_approved: "http://127.0.0.1:9/approved",
      verification_denied: "http://127.0.0.1:9/denied",
      verification_expired: "http://127.0.0.1:9/expired",
    };
    const set = await call(t, "PUT", "/api/v2/webhooks", { headers: keyOf(account), json: urls });
    expect(set.body.data, set.text).toMatchObject(urls);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await start(t, account, { recipient: freshNumber(), expiry_seconds: 60 })).body.data.verification_id);
    }
    const code = await capturedCode(
      captureFile,
      (await verifyCall(t, account, "GET", `/${ids[0]}`)).body.data.message_id,
    );
    await verifyCall(t, account, "POST", `/${ids[0]}/check`, { code });
    for (let i = 0; i < 5; i++) await verifyCall(t, account, "POST", `/${ids[1]}/check`, { code: "00000000" });
    advance(t, 60_000);
    await verifyCall(t, account, "GET", `/${ids[2]}`);
    const rows = await t.db.store.db
      .selectFrom("webhook_deliveries")
      .select(["event", "order_key", "payload"])
      .where("account_id", "=", account.id)
      .where("event", "in", ["verification_approved", "verification_denied", "verification_expired"])
      .orderBy("id")
      .execute();
    expect(rows.map((r) => [r.event, r.order_key])).toEqual([
      ["verification_approved", ids[0]],
      ["verification_denied", ids[1]],
      ["verification_expired", ids[2]],
    ]);
    expect(JSON.parse(String(rows[0]!.payload))).toMatchObject({
      verification_id: ids[0],
      status: "approved",
      channel: "sms",
    });
  });

  it("answers bad inputs with 400, 404 and 422 in the v2 dialect", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    for (const body of [
      { recipient: freshNumber(), code_length: 3 },
      { recipient: freshNumber(), code_length: 11 },
      { recipient: freshNumber(), expiry_seconds: 5 },
      { recipient: freshNumber(), channel: "fax" },
      { recipient: freshNumber(), extra: 1 },
      {},
    ]) {
      const answer = await verifyCall(t, account, "POST", "", body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    const badNumber = await verifyCall(t, account, "POST", "", { recipient: "12" });
    expect(badNumber.status).toBe(422);
    expect(badNumber.body.error.code).toBe("invalid_recipient");
    expect((await verifyCall(t, account, "GET", "/vnope")).status).toBe(404);
    expect((await verifyCall(t, account, "POST", "/v01ARZ3NDEKTSV4RRFFQ69G5FAV/check", { code: "1234" })).status).toBe(
      404,
    );
    const id = (await start(t, account, { recipient: freshNumber() })).body.data.verification_id;
    expect((await verifyCall(t, account, "POST", `/${id}/check`, { code: "12ab" })).status).toBe(400);
    expect((await verifyCall(t, account, "POST", `/${id}/check`, {})).status).toBe(400);
  });
});

describeEachEngine("Verify settings", (engine) => {
  const gateway = useTestGateway(engine, { env: verifyEnv().env });

  it("are set by the operator and read by the account", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator" });
    const account = await buildAccount(t);
    const put = await operatorCall(t, operator, "PUT", `/accounts/${account.username}/verify`, {
      verify_sender_id: "SWBRD",
      verify_template_id: "1107000000000000001",
      verify_channels: ["voice", "sms"],
    });
    expect(put.body.data).toMatchObject({ verify_sender_id: "SWBRD", verify_channels: ["voice", "sms"] });
    const read = await call(t, "GET", "/api/v2/verify/settings", { headers: keyOf(account) });
    expect(read.body.data).toEqual({
      verify_template_id: "1107000000000000001",
      verify_sender_id: "SWBRD",
      verify_whatsapp_template: null,
      verify_caller_id: null,
      verify_email_from: null,
      verify_channels: ["voice", "sms"],
      verify_countries: ["IN"],
    });
    const bad = await call(t, "PUT", `/admin/api/accounts/${account.username}/verify`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { verify_channels: ["sms", "fax"] },
    });
    expect(bad.status).toBe(400);
    const denied = await call(t, "PUT", `/admin/api/accounts/${account.username}/verify`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { verify_sender_id: "OTHER" },
    });
    expect(denied.status).toBe(403);
  });
});

describeEachEngine("Verify with VERIFY_RESEND_NEW_CODE", (engine) => {
  const { env, captureFile } = verifyEnv();
  const gateway = useTestGateway(engine, {
    clock: new ManualClock("2026-11-22T06:30:00Z"),
    env: { ...env, VERIFY_RESEND_NEW_CODE: "1" },
  });

  it("sends a new code on resend; the earlier one no longer approves", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    const id = (await start(t, account, { recipient: freshNumber(), code_length: 8 })).body.data.verification_id;
    const first = await capturedCode(captureFile, (await verifyCall(t, account, "GET", `/${id}`)).body.data.message_id);
    advance(t, 30_000);
    const resent = await verifyCall(t, account, "POST", `/${id}/resend`, {});
    const second = await capturedCode(captureFile, resent.body.data.message_id);
    expect(second).not.toBe(first);
    expect((await verifyCall(t, account, "POST", `/${id}/check`, { code: first })).body.data).toEqual({
      status: "pending",
      attempts_left: 4,
    });
    expect((await verifyCall(t, account, "POST", `/${id}/check`, { code: second })).body.data.status).toBe("approved");
  });
});
