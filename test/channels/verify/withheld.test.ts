// A code whose verification is over by the time the dispatcher picks up its message is not sent:
// the message fails with `verification_closed` and is refunded, never handed to the carrier
// masked (and charged). Also when the start failed after its message was saved.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import type { MessageRow } from "../../../src/base/store/schema.js";
import { codeRevealer, Verifier } from "../../../src/channels/verify/index.js";
import { VoicePolicy } from "../../../src/channels/voice/index.js";
import type { Connector, SubmitResult } from "../../../src/delivery/dispatch/index.js";
import type { AcceptService } from "../../../src/domain/messages/index.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { testDispatcher, useTestGateway } from "../../helpers/gateway.js";
import { auditLedger, milli } from "../../helpers/resellers.js";
import { advance, freshNumber, start, verifyAccount, verifyCall, verifyEnv } from "./helpers.js";

class RecordingConnector implements Connector {
  readonly name = "recorder";
  readonly channel = "sms";
  readonly sent: MessageRow[] = [];
  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    this.sent.push(...messages);
    return messages.map((m) => ({ ok: true, upstreamId: `R-${m.id}` }));
  }
  onReports(): void {}
}

describeEachEngine("Verify codes no longer valid when dispatched", (engine) => {
  // API only: the messages wait until the test's own dispatcher runs.
  const gateway = useTestGateway(engine, {
    clock: new ManualClock("2026-11-22T06:30:00Z"),
    env: verifyEnv().env,
    roles: ["api"],
  });

  it("withholds, fails and refunds the messages of approved, cancelled, expired and failed starts", async () => {
    const t = gateway();
    const { ctx } = t.gateway;
    const account = await verifyAccount(t);
    const before = await milli(t, account.id);
    const messageOf = async (id: string) => (await verifyCall(t, account, "GET", `/${id}`)).body.data.message_id;

    const expiring = (await start(t, account, { recipient: freshNumber(), expiry_seconds: 60 })).body.data
      .verification_id;
    advance(t, 60_000);
    const cancelled = (await start(t, account, { recipient: freshNumber() })).body.data.verification_id;
    expect((await verifyCall(t, account, "POST", `/${cancelled}/cancel`)).status).toBe(200);
    const approved = (await start(t, account, { recipient: freshNumber() })).body.data.verification_id;
    const sealed = await t.db.store.db
      .selectFrom("verifications")
      .select("code_sealed")
      .where("id", "=", approved)
      .executeTakeFirstOrThrow();
    const code = ctx.codeKeeper.unseal(approved, sealed.code_sealed!);
    expect((await verifyCall(t, account, "POST", `/${approved}/check`, { code })).body.data.status).toBe("approved");
    const pending = (await start(t, account, { recipient: freshNumber() })).body.data.verification_id;
    const closedMessages = [await messageOf(expiring), await messageOf(cancelled), await messageOf(approved)];
    expect((await verifyCall(t, account, "GET", `/${expiring}`)).body.data.status).toBe("expired");

    // The start's send was saved (and charged), then its answer was lost: the start failed.
    let lost: string | undefined;
    const answerLost: AcceptService = {
      accept: async (order) => {
        const outcome = await ctx.acceptor.accept(order);
        if (outcome.kind === "accepted") lost = outcome.send.messages[0]!.id;
        throw new Error("the answer was lost after the commit");
      },
    } as AcceptService;
    const failing = new Verifier({
      ...ctx,
      voicePolicy: new VoicePolicy(ctx.store, ctx.clock, ctx.config.voice, ctx.prices),
      acceptor: answerLost,
      keeper: ctx.codeKeeper,
      whatsapp: ctx.whatsapp.sends,
    });
    const principal = {
      accountId: account.id,
      username: account.username,
      role: "customer" as const,
      status: "active" as const,
      timeZone: "Asia/Kolkata",
    };
    await expect(
      failing.start(principal, { recipient: freshNumber(), codeLength: 6, expirySeconds: 600 }),
    ).rejects.toThrow("answer was lost");
    expect(lost).toBeDefined();
    const charged = await milli(t, account.id);
    expect(charged).toBeLessThan(before);

    const connector = new RecordingConnector();
    const dispatcher = testDispatcher(t, connector, { revealBodies: codeRevealer(ctx.store, ctx.codeKeeper) });
    dispatcher.start();
    try {
      // The one sent stays `submitted`: this connector reports nothing.
      await until(async () => {
        const waiting = await t.db.store.db
          .selectFrom("messages")
          .select("id")
          .where("account_id", "=", account.id)
          .where("status", "in", ["queued", "dispatching"])
          .execute();
        return waiting.length === 0;
      }, 20_000);
    } finally {
      await dispatcher.stop();
    }

    // Only the pending verification's message reached the carrier, with its code in clear.
    const pendingMessage = await messageOf(pending);
    expect(connector.sent.map((m) => m.id)).toEqual([pendingMessage]);
    expect(connector.sent[0]!.body).toMatch(/^\d{6} is your verification code/);
    const rows = await t.db.store.db
      .selectFrom("messages")
      .select(["id", "status", "error_code", "error_message"])
      .where("id", "in", [...closedMessages, lost!])
      .execute();
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "failed", error_code: "verification_closed" });
    }
    expect(rows.find((r) => r.id === closedMessages[1])!.error_message).toContain("is cancelled");
    expect(rows.find((r) => r.id === lost)!.error_message).toContain("was never started");
    // Every withheld message refunded: only the one that went is paid for.
    const price = (before - charged) / 5;
    expect(Number.isInteger(price) && price > 0).toBe(true);
    expect(await milli(t, account.id)).toBe(before - price);
    await auditLedger(t);
    const refunds = await t.db.store.db
      .selectFrom("ledger_entries")
      .select("ref")
      .where("account_id", "=", account.id)
      .where("kind", "=", "refund")
      .execute();
    expect(refunds.map((r) => r.ref).sort()).toEqual([...closedMessages, lost!].sort());
  });
});
