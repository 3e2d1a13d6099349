// Every delivery_report webhook names the broadcast its message belongs to (`broadcast_id`, the id a
// legacy, XML or voice send answered: their only id) and, for a v2 bulk job's message, the job
// (`job_id`): added after the spec's fields, which keep their order. Through the running gateway:
// the sends over HTTP, the simulated carrier's reports, the webhooks to a local receiver, signed.
import { expect, it } from "vitest";
import { applyReturnedBounce } from "../../../src/channels/email/events.js";
import { setWebhookUrls } from "../../../src/domain/webhooks/settings.js";
import { base, emailAccount, postEmail } from "../../channels/email/helpers.js";
import { buildVoiceAccount, callParams, FAST_VOICE_SIMULATOR, placeCall } from "../../channels/voice/helpers.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { credentials, expectBroadcastId, legacy, pushsms, sendParams, xmlSend } from "../../helpers/legacy.js";
import { FAST_SIMULATOR, keyOf, sendSms, statusOf } from "../../helpers/sms.js";
import { outboxSettled, type Receiver, receiver, until, useReceivers, verify } from "./receiver.js";

useReceivers();

const SPEC_FIELDS = ["event", "message_id", "status", "delivered_at", "recipient"];

type Body = Record<string, unknown>;

/** The webhooks `hook` received, each verified with the account's secret (throws on a bad signature). */
function verified(hook: Receiver, secret: string): Body[] {
  return hook.received.map((request) => verify(secret, request) as Body);
}

/** The queue ids of a broadcast's messages, by recipient. */
async function messagesOf(t: TestGateway, broadcastId: string): Promise<Map<string, string>> {
  const rows = await t.db.store.db
    .selectFrom("messages")
    .select(["id", "recipient"])
    .where("broadcast_id", "=", broadcastId)
    .execute();
  return new Map(rows.map((row) => [row.recipient, row.id]));
}

/** Waits until `hook` has `count` webhooks and the outbox has nothing more for it. */
async function settled(t: TestGateway, hook: Receiver, count: number): Promise<void> {
  await until(() => hook.received.length >= count, 15_000);
  await outboxSettled(t.db.store, hook.url);
  expect(hook.received).toHaveLength(count);
}

describeEachEngine("delivery_report webhooks name the broadcast and the bulk job", (engine) => {
  const gateway = useTestGateway(engine, {
    env: { ...FAST_SIMULATOR, ...FAST_VOICE_SIMULATOR, SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" },
  });

  async function account(t: TestGateway, hook: Receiver): Promise<{ account: TestAccount; secret: string }> {
    const created = await buildAccount(t, { credits: { sms: 100 } });
    const { secret } = await setWebhookUrls(t.db.store, t.clock, created.id, { delivery_report: hook.url });
    return { account: created, secret: secret! };
  }

  it("legacy and XML sends: each event's broadcast_id is the id its send answered, one number in both", async () => {
    const t = gateway();
    const hook = await receiver();
    const { account: a, secret } = await account(t, hook);
    // 9876500001: the carrier reports it failed; 9876500002: the carrier refuses the submit.
    const legacyId = expectBroadcastId(
      await legacy(t, "/httpapi/send", sendParams(a, { phonenumber: "9876543210,9876500001" })),
      a,
      "legacy",
    );
    const xmlId = expectBroadcastId(
      await xmlSend(
        t,
        pushsms(credentials(a), {
          route: "T",
          messages: [
            { pno: "9876543210", msg: "Hello again" },
            { pno: "9876500002", msg: "Hello again" },
          ],
        }),
      ),
      a,
      "xml",
    );
    expect(xmlId).not.toBe(legacyId);
    const legacyMessages = await messagesOf(t, legacyId);
    const xmlMessages = await messagesOf(t, xmlId);
    expect(legacyMessages.size).toBe(2);
    expect(xmlMessages.size).toBe(2);

    // submitted + delivered, submitted + failed; submitted + delivered, failed (never submitted).
    await settled(t, hook, 7);
    const events = verified(hook, secret);
    const broadcastOf = new Map<string, string>();
    for (const [, id] of legacyMessages) broadcastOf.set(id, legacyId);
    for (const [, id] of xmlMessages) broadcastOf.set(id, xmlId);
    for (const event of events) {
      const messageId = event.message_id as string;
      expect(broadcastOf.get(messageId), JSON.stringify(event)).toBeDefined();
      expect(event.broadcast_id, JSON.stringify(event)).toBe(broadcastOf.get(messageId));
      // The spec's fields first, in its order; a failure's error next; then the broadcast.
      const fields = [...SPEC_FIELDS, ...(event.status === "failed" ? ["error"] : []), "broadcast_id"];
      expect(Object.keys(event)).toEqual(fields);
      expect(event).not.toHaveProperty("job_id");
    }
    // The number both sends reached: its four events split by broadcast, as its client would match them.
    const both = events.filter((event) => event.recipient === "9876543210");
    expect(both.map((event) => [event.broadcast_id, event.status]).sort()).toEqual(
      [
        [legacyId, "delivered"],
        [legacyId, "submitted"],
        [xmlId, "delivered"],
        [xmlId, "submitted"],
      ].sort(),
    );
    expect(events.find((event) => event.recipient === "9876500001" && event.status === "failed")).toMatchObject({
      broadcast_id: legacyId,
      error: { code: "UNDELIV" },
    });
    expect(events.filter((event) => event.recipient === "9876500002")).toEqual([
      expect.objectContaining({ status: "failed", broadcast_id: xmlId }),
    ]);
  });

  it("v2 bulk sends: every event names the job the answer gave and the call's batch", async () => {
    const t = gateway();
    const hook = await receiver();
    const { account: a, secret } = await account(t, hook);
    const bulk = (json: Record<string, unknown>) =>
      call(t, "POST", "/api/v2/sms/bulk", {
        headers: keyOf(a),
        json: { sender_id: "SWBRD", route: "transactional", message: "Sale today", ...json },
      });
    const first = await bulk({ recipients: ["9876543210", "9876543211"] });
    expect(first.status, first.text).toBe(200);
    const { job_id: jobId, batch_id: firstBatch } = first.body.data;
    expect(Number.isInteger(jobId)).toBe(true);
    // The same job extended by a second call, to a number the first call reached too.
    const second = await bulk({ recipients: ["9876543210"], job_id: jobId });
    expect(second.status, second.text).toBe(200);
    expect(second.body.data.job_id).toBe(jobId);
    const secondBatch = second.body.data.batch_id as string;

    await settled(t, hook, 6);
    const events = verified(hook, secret);
    for (const event of events) {
      expect(Object.keys(event)).toEqual([...SPEC_FIELDS, "broadcast_id", "job_id"]);
      expect(event.job_id).toBe(jobId);
    }
    const batches = new Set([firstBatch, secondBatch]);
    for (const batch of batches) {
      const ids = new Set((await messagesOf(t, batch)).values());
      const mine = events.filter((event) => ids.has(event.message_id as string));
      expect(mine.length, batch).toBe(ids.size * 2);
      expect(mine.every((event) => event.broadcast_id === batch)).toBe(true);
    }
    expect(events.filter((event) => event.recipient === "9876543210").map((event) => event.broadcast_id)).toEqual(
      expect.arrayContaining([firstBatch, secondBatch]),
    );
  });

  it("a v2 send: broadcast_id is the status call's, and no job_id", async () => {
    const t = gateway();
    const hook = await receiver();
    const { account: a, secret } = await account(t, hook);
    const sent = await sendSms(t, a, { sender_id: "SWBRD", recipient: "9876543210", message: "Hello" });
    expect(sent.status, sent.text).toBe(200);
    const id = sent.body.data.message_id as string;
    await settled(t, hook, 2);
    const status = await statusOf(t, a, id);
    expect(status.status).toBe(200);
    const broadcastId = status.body.data.broadcast_id as string;
    expect(broadcastId).toMatch(/^\d+_\d{8}_\d+$/);
    expect(verified(hook, secret)).toEqual([
      expect.objectContaining({ message_id: id, status: "submitted", broadcast_id: broadcastId }),
      expect.objectContaining({ message_id: id, status: "delivered", broadcast_id: broadcastId }),
    ]);
    for (const event of hook.bodies()) expect(Object.keys(event)).toEqual([...SPEC_FIELDS, "broadcast_id"]);
  });

  it("a voice call: broadcast_id is the id the call answered", async () => {
    const t = gateway();
    const hook = await receiver();
    const a = await buildVoiceAccount(t, { voice: 10 });
    const { secret } = await setWebhookUrls(t.db.store, t.clock, a.id, { delivery_report: hook.url });
    const answer = await placeCall(t, "FORM", callParams(a, { to: "9876500011" }));
    expect(answer.status, answer.text).toBe(200);
    const broadcastId = answer.text;
    expect(broadcastId).toMatch(new RegExp(`^${a.id}_\\d{8}_\\d+$`));
    await settled(t, hook, 2);
    const events = verified(hook, secret!);
    expect(events.map((event) => event.status)).toEqual(["submitted", "delivered"]);
    for (const event of events) {
      expect(Object.keys(event)).toEqual([...SPEC_FIELDS, "broadcast_id"]);
      expect(event).toMatchObject({ recipient: "9876500011", broadcast_id: broadcastId });
    }
  });

  it("an email send without notifyurl: its delivery_report events name the send, a returned bounce's too", async () => {
    const t = gateway();
    const hook = await receiver();
    const a = await emailAccount(t);
    const { secret } = await setWebhookUrls(t.db.store, t.clock, a.id, { delivery_report: hook.url });
    // nobody+bounce: the simulated relay refuses it (failed, never submitted).
    const answer = await postEmail(t, { ...base(a), to: "asha@example.org, nobody+bounce@example.org" });
    expect(answer.text).toMatch(/^\d+_\d{8}_\d+$/);
    const broadcastId = answer.text;
    await until(() => hook.received.length >= 3, 15_000);
    const asha = (await messagesOf(t, broadcastId)).get("asha@example.org")!;
    // A DSN that came back later for the delivered one (as the bounce listener hands it over).
    expect(await applyReturnedBounce(t.gateway.ctx, { messageId: asha, diagnostic: "550 5.1.1 user unknown" })).toBe(
      true,
    );
    await settled(t, hook, 4);
    const events = verified(hook, secret!);
    expect(events.map((event) => [event.recipient, event.status]).sort()).toEqual(
      [
        ["asha@example.org", "delivered"],
        ["asha@example.org", "failed"],
        ["asha@example.org", "submitted"],
        ["nobody+bounce@example.org", "failed"],
      ].sort(),
    );
    for (const event of events) {
      expect(Object.keys(event)).toEqual([
        ...SPEC_FIELDS,
        ...(event.status === "failed" ? ["error"] : []),
        "broadcast_id",
      ]);
      expect(event.broadcast_id).toBe(broadcastId);
    }
  });
});
