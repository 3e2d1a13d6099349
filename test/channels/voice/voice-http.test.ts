// The voice-http connector against a local Twilio-compatible provider over real HTTP: the
// create-call request, call progress driven by signed status callbacks (visible in
// GET /api/v2/sms/status/{id} and the delivery_report webhook), refunds exactly when no call
// was placed, retries only of what placed no call, forged callbacks refused.
import { expect, it } from "vitest";
import { setWebhookUrls } from "../../../src/domain/webhooks/settings.js";
import { outboxSettled, suiteReceivers, until, verify } from "../../domain/webhooks/receiver.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import type { TestAccount } from "../../helpers/gateway.js";
import type { CreateCallRequest } from "./fake-provider.js";
import {
  buildVoiceAccount,
  CALLER,
  callParams,
  callStatus,
  expectBroadcastId,
  placeCall,
  useVoiceHttpGateway,
  type VoiceHttpGateway,
  voiceBalance,
  waitForCall,
} from "./helpers.js";

// The engines' suites run at the same time (a create's time-out, the dispatcher's retries and
// the held callbacks' are waits), each with its own gateway, provider and receivers.
describeEnginesTogether("voice-http connector and status callbacks", (engine) => {
  const receiver = suiteReceivers();
  // Long enough for the provider that calls back before it answers (the last test) to see its
  // callbacks taken on two busy cores: at 400 ms, its create timed out one run in two under load.
  const gateway = useVoiceHttpGateway(engine, { VOICE_HTTP_TIMEOUT_MS: "3000" });

  /** Places a call to `to` and waits until the provider received its create request. */
  async function placed(g: VoiceHttpGateway, account: TestAccount, to: string, text?: string) {
    const id = expectBroadcastId(
      await placeCall(g.t, "FORM", callParams(account, { to, ...(text ? { text } : {}) })),
      account,
    );
    const e164 = to.startsWith("+") ? to : `+91${to}`;
    await until(() => g.provider.callsTo(e164).length > 0);
    const request = g.provider.callsTo(e164)[0]!;
    await waitForCall(g.t, account, id, (r) => r.status === "submitted");
    return { id, request };
  }

  async function ledgerOf(g: VoiceHttpGateway, account: TestAccount) {
    return g.t.db.store.db
      .selectFrom("ledger_entries")
      .select(["kind", "amount", "wallet"])
      .where("account_id", "=", account.id)
      .where("wallet", "=", "voice")
      .orderBy("id")
      .execute();
  }

  it("creates the call with the provider's API: Basic auth, E.164 numbers, escaped <Say>, status callbacks", async () => {
    const g = gateway();
    const account = await buildVoiceAccount(g.t);
    const { id, request } = await placed(g, account, "9876500010", "  Your code is 4 & 2 <3>  ");
    expect(request.method).toBe("POST");
    expect(request.path).toBe(`/2010-04-01/Accounts/${g.provider.accountSid}/Calls.json`);
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries([...new Set(request.form.keys())].map((k) => [k, request.form.getAll(k)]))).toEqual({
      To: ["+919876500010"],
      From: [CALLER],
      Twiml: ['<Response><Say language="en-IN">Your code is 4 &amp; 2 &lt;3&gt;</Say></Response>'],
      StatusCallback: ["https://switchboard.example.test/gw/voicecall/v1/status-callback"],
      StatusCallbackMethod: ["POST"],
      StatusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
    });
    const report = await callStatus(g.t, account, id);
    expect(report).toMatchObject({
      status: "submitted",
      mobile: "9876500010",
      sender_id: CALLER,
      route: "voice",
      vendor_message_id: request.sid,
      credit: 1,
      call: { status: null, duration_seconds: null, units: 1, estimated_speech_seconds: 2 },
    });
    // The call is found by the provider's id too.
    expect((await callStatus(g.t, account, request.sid)).message_id).toBe(report.message_id);
  });

  it("follows the signed callbacks: ringing and in-progress visible, completed delivered, webhooks submitted then delivered", async () => {
    const g = gateway();
    const hook = await receiver();
    const account = await buildVoiceAccount(g.t, { voice: 10 });
    const { secret } = await setWebhookUrls(g.t.db.store, g.t.clock, account.id, { delivery_report: hook.url });
    const { id, request } = await placed(g, account, "9876500011");
    const messageId = (await callStatus(g.t, account, id)).message_id;

    for (const [status, expected] of [
      ["initiated", "initiated"],
      ["ringing", "ringing"],
      ["in-progress", "in-progress"],
    ] as const) {
      expect(await g.provider.callback(request, status)).toEqual({ status: 204, text: "" });
      expect(await callStatus(g.t, account, id)).toMatchObject({ status: "submitted", call: { status: expected } });
    }
    expect((await g.provider.callback(request, "completed", { extra: { CallDuration: "12" } })).status).toBe(204);
    const done = await callStatus(g.t, account, id);
    expect(done).toMatchObject({
      status: "delivered",
      call: { status: "completed", duration_seconds: 12, units: 1 },
    });
    expect(done.delivery_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(done.error).toBeUndefined();

    // Late, repeated and contradicting callbacks move nothing back.
    for (const status of ["ringing", "in-progress", "completed", "busy", "failed"]) {
      expect((await g.provider.callback(request, status)).status).toBe(204);
    }
    expect(await callStatus(g.t, account, id)).toMatchObject({
      status: "delivered",
      call: { status: "completed", duration_seconds: 12 },
    });

    // Each callback is applied before its answer: the outbox has every event they caused.
    await outboxSettled(g.t.db.store, hook.url);
    expect(hook.bodies()).toEqual([
      expect.objectContaining({
        event: "delivery_report",
        message_id: messageId,
        status: "submitted",
        recipient: "9876500011",
      }),
      expect.objectContaining({
        event: "delivery_report",
        message_id: messageId,
        status: "delivered",
        recipient: "9876500011",
      }),
    ]);
    for (const [index, delivery] of hook.received.entries())
      expect(verify(secret!, delivery)).toEqual(hook.bodies()[index]);
    // Charged once, never refunded.
    expect(await voiceBalance(g.t, account)).toBe(9);
  });

  it("fails a busy, unanswered, failed or cancelled call with the call status as its error, without a refund", async () => {
    const g = gateway();
    const hook = await receiver();
    const account = await buildVoiceAccount(g.t, { voice: 10 });
    await setWebhookUrls(g.t.db.store, g.t.clock, account.id, { delivery_report: hook.url });
    const outcomes = [
      ["9876500021", "busy", "The line was busy."],
      ["9876500022", "no-answer", "The call was not answered."],
      ["9876500023", "failed", "The call could not be connected."],
      ["9876500024", "canceled", "The call was cancelled before it was answered."],
    ] as const;
    for (const [to, status, message] of outcomes) {
      const { id, request } = await placed(g, account, to);
      if (status === "no-answer") await g.provider.callback(request, "ringing");
      expect((await g.provider.callback(request, status, { extra: { CallDuration: "0" } })).status).toBe(204);
      expect(await callStatus(g.t, account, id)).toMatchObject({
        status: "failed",
        delivery_time: null,
        error: { code: status, message },
        call: { status, duration_seconds: 0 },
      });
    }
    expect(await voiceBalance(g.t, account)).toBe(6);
    expect((await ledgerOf(g, account)).filter((e) => e.kind === "refund")).toEqual([]);
    await until(() => hook.received.length >= 8);
    // In order per message (the sender's promise), one submitted and one failed each.
    const byMessage = new Map<unknown, unknown[]>();
    for (const body of hook.bodies())
      byMessage.set(body.message_id, [...(byMessage.get(body.message_id) ?? []), body.status]);
    expect([...byMessage.values()]).toEqual(outcomes.map(() => ["submitted", "failed"]));
  });

  it("refunds exactly a call the provider refuses to create (4xx), and does not ask again", async () => {
    const g = gateway();
    const hook = await receiver();
    const account = await buildVoiceAccount(g.t, { voice: 5 });
    await setWebhookUrls(g.t.db.store, g.t.clock, account.id, { delivery_report: hook.url });
    const to = "+919876500031";
    g.provider.answer = (request) =>
      request.form.get("To") === to
        ? {
            status: 400,
            body: { code: 21211, message: "The 'To' number +919876500031 is not a valid phone number.", status: 400 },
          }
        : { status: 201, body: { sid: request.sid, status: "queued" } };
    try {
      const id = expectBroadcastId(
        await placeCall(g.t, "JSON", callParams(account, { to, text: "a".repeat(500) })),
        account,
      );
      expect(await voiceBalance(g.t, account)).toBe(3);
      const report = await waitForCall(g.t, account, id, (r) => r.status === "failed");
      expect(report).toMatchObject({
        sent_time: null,
        vendor_message_id: null,
        credit: 2,
        error: {
          code: "rejected",
          message: "HTTP 400: The 'To' number +919876500031 is not a valid phone number. (provider code 21211)",
        },
      });
      expect(await voiceBalance(g.t, account)).toBe(5);
      expect(await ledgerOf(g, account)).toEqual([
        { kind: "topup", amount: 5000, wallet: "voice" },
        { kind: "debit", amount: -2000, wallet: "voice" },
        { kind: "refund", amount: 2000, wallet: "voice" },
      ]);
      // Failed is final: nothing dispatches it again (a retry would have kept it queued).
      await outboxSettled(g.t.db.store, hook.url);
      expect(g.provider.callsTo(to)).toHaveLength(1);
      expect(hook.bodies().map((b) => b.status)).toEqual(["failed"]);
    } finally {
      g.provider.answer = (request) => ({ status: 201, body: { sid: request.sid, status: "queued" } });
    }
  });

  it("retries a throttled (429) or unavailable (503) provider, then places the call once", async () => {
    const g = gateway();
    const account = await buildVoiceAccount(g.t, { voice: 5 });
    const first: Record<string, number> = { "+919876500041": 429, "+919876500042": 503 };
    g.provider.answer = (request, index) => {
      const status = index === 0 ? first[request.form.get("To") ?? ""] : undefined;
      return status
        ? { status, body: { code: status === 429 ? 20429 : 20500, message: "Try again", status } }
        : { status: 201, body: { sid: request.sid, status: "queued" } };
    };
    try {
      const ids = [];
      for (const to of Object.keys(first))
        ids.push(expectBroadcastId(await placeCall(g.t, "GET", callParams(account, { to })), account));
      for (const [index, to] of Object.keys(first).entries()) {
        const report = await waitForCall(g.t, account, ids[index]!, (r) => r.status === "submitted", 5_000);
        const calls = g.provider.callsTo(to);
        expect(calls).toHaveLength(2);
        expect(report.vendor_message_id).toBe(calls[1]!.sid);
      }
      const rows = await g.t.db.store.db
        .selectFrom("messages")
        .select(["attempts", "error_code"])
        .where("broadcast_id", "in", ids)
        .execute();
      expect(rows).toEqual([
        { attempts: 2, error_code: null },
        { attempts: 2, error_code: null },
      ]);
      expect(await voiceBalance(g.t, account)).toBe(3);
    } finally {
      g.provider.answer = (request) => ({ status: 201, body: { sid: request.sid, status: "queued" } });
    }
  });

  it("fails and refunds a create that times out, and never sends it again (the call may ring)", async () => {
    const g = gateway();
    const account = await buildVoiceAccount(g.t, { voice: 5 });
    const to = "+919876500051";
    g.provider.answer = (request) =>
      request.form.get("To") === to ? "hang" : { status: 201, body: { sid: request.sid, status: "queued" } };
    try {
      const id = expectBroadcastId(await placeCall(g.t, "GET", callParams(account, { to })), account);
      const report = await waitForCall(g.t, account, id, (r) => r.status === "failed", 5_000);
      expect(report.error).toEqual({
        code: "timeout",
        message: "No answer from the voice provider within 3000 ms; not retried, as the call may have been placed.",
      });
      expect(await voiceBalance(g.t, account)).toBe(5);
      // Failed is final (read above): nothing claims it again; the one request came before the timeout.
      expect(g.provider.callsTo(to)).toHaveLength(1);
    } finally {
      g.provider.answer = (request) => ({ status: 201, body: { sid: request.sid, status: "queued" } });
    }
  });

  it("refuses unsigned and forged callbacks, and acknowledges a signed one for an unknown call", async () => {
    const g = gateway();
    const account = await buildVoiceAccount(g.t);
    const { id, request } = await placed(g, account, "9876500061");
    const forgeries: [string, Parameters<typeof g.provider.callback>[2]][] = [
      ["unsigned", { signature: null }],
      ["empty signature", { signature: "" }],
      ["signed with another token", { token: "not-the-auth-token" }],
      ["signed over the gateway's internal URL", { signedUrl: `${g.t.url}/voicecall/v1/status-callback` }],
      [
        "a field changed after signing",
        { tamper: (params) => params.map(([k, v]) => [k, k === "CallDuration" ? "999" : v] as [string, string]) },
      ],
      ["a field added after signing", { tamper: (params) => [...params, ["Extra", "1"]] }],
      ["another provider account", { extra: { AccountSid: "ACffffffffffffffffffffffffffffffff" } }],
    ];
    for (const [what, options] of forgeries) {
      const response = await g.provider.callback(request, "completed", options);
      expect(response.status, what).toBe(403);
      expect(response.text, what).not.toMatch(/^\s+at\s/m);
    }
    expect(await callStatus(g.t, account, id)).toMatchObject({ status: "submitted", call: { status: null } });

    const unknown: CreateCallRequest = { ...request, sid: "CA00000000000000000000000000000000" };
    expect(await g.provider.callback(unknown, "completed")).toEqual({ status: 204, text: "" });
    expect(await g.provider.callback(request, "completed")).toEqual({ status: 204, text: "" });
    expect(await callStatus(g.t, account, id)).toMatchObject({ status: "delivered", call: { status: "completed" } });
  });

  it("applies callbacks that arrive before the gateway recorded the call as placed", async () => {
    const g = gateway();
    const account = await buildVoiceAccount(g.t);
    const ringing = "+919876500071";
    const completed = "+919876500072";
    g.provider.callbacksBeforeAnswer = (request) =>
      request.form.get("To") === ringing
        ? ["initiated", "ringing"]
        : request.form.get("To") === completed
          ? ["ringing", "completed"]
          : [];
    try {
      const first = expectBroadcastId(await placeCall(g.t, "GET", callParams(account, { to: ringing })), account);
      const second = expectBroadcastId(await placeCall(g.t, "GET", callParams(account, { to: completed })), account);
      // The held statuses are tried again every 250 ms for a minute: 15 s, as one full-suite
      // run on two busy cores took longer than 5 s to show the second call delivered.
      await waitForCall(g.t, account, first, (r) => r.status === "submitted" && r.call.status === "ringing", 15_000);
      await waitForCall(g.t, account, second, (r) => r.status === "delivered" && r.call.status === "completed", 15_000);
    } finally {
      g.provider.callbacksBeforeAnswer = () => [];
    }
  });
});
