// Meta's status for a wamid the gateway has not recorded yet (it came before the send's
// transaction committed, or to another node) is kept in the database before Meta hears its 200
// (decision 0191): it survives a restart, applies once when the send records the wamid or by
// upkeep, with one delivery_report; one no message takes is dropped after an hour; a status
// delivered twice gives one webhook; a malformed callback is answered as Meta expects.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger, type Gateway, startGateway } from "../../../src/app/gateway.js";
import { ManualClock } from "../../../src/base/core/clock.js";
import { KEEP_EARLY_STATUSES_MS } from "../../../src/channels/whatsapp/early-statuses.js";
import { outboxSettled, receiver, until, useReceivers } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestGateway, testConfig } from "../../helpers/gateway.js";
import { type FakeGraph, startFakeGraph, statusCallback } from "./fake-graph.js";
import { APP_SECRET, connectToFakeBusiness, templateSend, VERIFY_TOKEN } from "./helpers.js";

const TO = "919876543210";

describeEachEngine("WhatsApp statuses that come before their message", (engine) => {
  useReceivers();
  const clock = new ManualClock(new Date());
  let fake: FakeGraph;
  let first: TestGateway;
  let second: Gateway | undefined;
  let env: Record<string, string>;
  /** The gateway answering now: the first, then the one started on its database. */
  let url: string;

  beforeAll(async () => {
    fake = await startFakeGraph();
    env = {
      WHATSAPP_CONNECTOR: "whatsapp-cloud",
      WHATSAPP_GRAPH_URL: fake.url,
      WHATSAPP_APP_SECRET: APP_SECRET,
      WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
      WHATSAPP_TIMEOUT_MS: "2000",
      SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
    };
    first = await startTestGateway(engine, { clock, env });
    url = first.url;
  });
  afterAll(async () => {
    await second?.stop();
    if (!second) await first?.gateway.stop();
    await first?.db.drop();
    await fake?.close();
  });

  const store = () => first.db.store;
  const events = () => (second ?? first.gateway).ctx.whatsapp.events;

  /** A funded account on the fake's business account, its delivery reports posted to a receiver. */
  async function customer() {
    const account = await buildAccount(first, { credits: { whatsapp: 10 }, sender: null });
    const { phoneNumberId, wabaId } = await connectToFakeBusiness(fake, store().db, clock, account.id);
    const v2 = (method: string, path: string, json?: unknown) =>
      call({ ...first, url }, method, `/api/v2${path}`, {
        headers: { authorization: `Bearer ${account.apiKey}` },
        ...(json !== undefined ? { json } : {}),
      });
    const hook = await receiver();
    expect((await v2("PUT", "/webhooks", { delivery_report: hook.url })).status).toBe(200);
    /** A template send that the fake answers with `wamid` (a fresh one when not given). */
    const send = (wamid?: string) => templateSend(fake, v2, TO, wamid);
    const status = (messageId: string, s: "delivered" | "read" | "failed", at = clock.now().getTime()) =>
      statusCallback({
        wabaId,
        phoneNumberId,
        messageId,
        status: s,
        recipientId: TO,
        at,
        ...(s === "failed" ? { errors: [{ code: 131026, title: "Message undeliverable" }] } : {}),
      });
    /** The delivery_report statuses the receiver got for a wamid, once nothing more is on its way. */
    const reports = async (messageId: string) => {
      await outboxSettled(store(), hook.url);
      return (hook.bodies() as { message_id: string; status: string }[])
        .filter((e) => e.message_id === messageId)
        .map((e) => e.status);
    };
    return { send, status, reports };
  }

  const callback = (payload: unknown) =>
    fake.sendWebhook(`${url}/webhooks/whatsapp`, payload, { appSecret: APP_SECRET });
  const kept = async () =>
    (
      await store()
        .db.selectFrom("whatsapp_early_statuses")
        .select(["upstream_id", "status"])
        .orderBy("upstream_id")
        .orderBy("status")
        .execute()
    ).map((r) => `${r.upstream_id} ${r.status}`);
  const messageStatus = async (wamid: string) =>
    (await store().db.selectFrom("messages").select("status").where("upstream_id", "=", wamid).executeTakeFirst())
      ?.status;
  const received = { status: 200, body: "EVENT_RECEIVED" };

  it("keeps a status across a restart and applies it once, when the send records the wamid or by upkeep", async () => {
    const c = await customer();
    const early = `wamid.early-${randomBytes(6).toString("hex")}`;
    const late = `wamid.late-${randomBytes(6).toString("hex")}`;
    // Meta's statuses before any message carries their wamids; the delivered one delivered twice.
    expect(await callback(c.status(early, "delivered"))).toEqual(received);
    expect(await callback(c.status(early, "delivered"))).toEqual(received);
    expect(await callback(c.status(late, "failed"))).toEqual(received);
    expect(await kept()).toEqual([`${early} delivered`, `${late} failed`].sort());

    // The process stops (its retries from memory go with it) and another starts on the database.
    await first.gateway.stop();
    expect(await kept()).toEqual([`${early} delivered`, `${late} failed`].sort());
    second = await startGateway({
      config: testConfig(first.db, env),
      roles: ["api", "worker"],
      clock,
      store: store(),
      logger: createLogger({ logLevel: "silent" }),
      openApiAtStart: false,
    });
    url = second.url ?? "";

    // The send records the wamid the kept status names: applied then, once.
    const sent = await c.send(early);
    expect(sent.message_id).toBe(early);
    expect(await messageStatus(early)).toBe("delivered");
    expect(await kept()).toEqual([`${late} failed`]);
    // Meta's same status again, and a look of upkeep's, change nothing more.
    expect(await callback(c.status(early, "delivered"))).toEqual(received);
    expect(await events().applyKept()).toEqual({ applied: 0, left: [late] });
    expect(await c.reports(early)).toEqual(["sent", "delivered"]);

    // A message recorded without its send's look at the kept statuses (its process stopped right
    // after the commit): upkeep applies the kept failure, with its error.
    const other = await c.send();
    await store()
      .db.updateTable("messages")
      .set({ upstream_id: late })
      .where("upstream_id", "=", other.message_id)
      .execute();
    await until(async () => (await messageStatus(late)) === "failed", 15_000);
    expect(await kept()).toEqual([]);
    const failed = await store()
      .db.selectFrom("messages")
      .select(["error_code", "error_message"])
      .where("upstream_id", "=", late)
      .executeTakeFirstOrThrow();
    expect(failed).toEqual({ error_code: "131026", error_message: "Message undeliverable" });
    expect(await c.reports(late)).toEqual(["failed"]);
  }, 60_000);

  it("answers a status delivered twice with one webhook, and twice in one callback too", async () => {
    const c = await customer();
    const sent = await c.send();
    const delivered = c.status(sent.message_id, "delivered");
    expect(await callback(delivered)).toEqual(received);
    expect(await callback(delivered)).toEqual(received);
    const read = c.status(sent.message_id, "read") as {
      entry: Array<{ changes: Array<{ value: { statuses: unknown[] } }> }>;
    };
    const statuses = read.entry[0]!.changes[0]!.value.statuses;
    statuses.push(statuses[0]);
    expect(await callback(read)).toEqual(received);
    expect(await c.reports(sent.message_id)).toEqual(["sent", "delivered", "read"]);
    expect(await kept()).toEqual([]);
  });

  it("applies a kept status once when several looks (processes) find its message at the same time", async () => {
    const c = await customer();
    const wamid = `wamid.race-${randomBytes(6).toString("hex")}`;
    expect(await callback(c.status(wamid, "delivered"))).toEqual(received);
    expect(await callback(c.status(wamid, "read"))).toEqual(received);
    const sent = await c.send();
    await store()
      .db.updateTable("messages")
      .set({ upstream_id: wamid })
      .where("upstream_id", "=", sent.message_id)
      .execute();
    // Each look is its own read and transaction, as another process's would be.
    await Promise.all([events().applyKept(), events().applyKept([wamid]), events().applyKept()]);
    await until(async () => (await kept()).every((row) => !row.startsWith(wamid)));
    expect(await messageStatus(wamid)).toBe("read");
    expect(await c.reports(wamid)).toEqual(["delivered", "read"]);
  });

  it("answers malformed callbacks as Meta expects, keeping nothing and going on", async () => {
    const c = await customer();
    const wamid = `wamid.bad-${randomBytes(6).toString("hex")}`;
    // Not JSON: 400. A status item without a timestamp is left out: the callback is taken.
    const raw = await fake.sendWebhook(`${url}/webhooks/whatsapp`, "{not json", { appSecret: APP_SECRET });
    expect(raw.status).toBe(400);
    const noTime = c.status(wamid, "delivered") as {
      entry: Array<{ changes: Array<{ value: { statuses: Array<Record<string, unknown>> } }> }>;
    };
    delete noTime.entry[0]!.changes[0]!.value.statuses[0]!.timestamp;
    expect(await callback(noTime)).toEqual(received);
    // An id longer than Meta's: unreadable, left out.
    expect(await callback(c.status(`wamid.${"x".repeat(300)}`, "delivered"))).toEqual(received);
    // A wrong signature: 401.
    const forged = await fake.sendWebhook(`${url}/webhooks/whatsapp`, c.status(wamid, "read"), { appSecret: "wrong" });
    expect(forged.status).toBe(401);
    expect(await kept()).toEqual([]);
    // The gateway goes on: a send and its status as before.
    const sent = await c.send();
    expect(await callback(c.status(sent.message_id, "delivered"))).toEqual(received);
    expect(await c.reports(sent.message_id)).toEqual(["sent", "delivered"]);
  });

  it("drops a status no message takes within the hour, with the warning's count", async () => {
    const c = await customer();
    const metric = async () => {
      const text = (await call({ ...first, url }, "GET", "/metrics")).text;
      const line = text
        .split("\n")
        .find((l) => l.startsWith('switchboard_early_reports_dropped_total{reason="whatsapp_expired"} '));
      return Number(line?.split(" ")[1] ?? 0);
    };
    const before = await metric();
    const stray = `wamid.stray-${randomBytes(6).toString("hex")}`;
    expect(await callback(c.status(stray, "read"))).toEqual(received);
    expect(await kept()).toEqual([`${stray} read`]);
    // Upkeep keeps it until the hour is past, then drops it.
    clock.advance(KEEP_EARLY_STATUSES_MS - 1_000);
    expect(await events().dropExpired()).toBe(0);
    expect(await kept()).toEqual([`${stray} read`]);
    clock.advance(2_000);
    await until(async () => (await kept()).length === 0, 15_000);
    expect((await metric()) - before).toBe(1);
  }, 30_000);

  it("finds kept statuses past the first page of a look: 600 kept, the last two's messages recorded", async () => {
    const c = await customer();
    const prefix = `wamid.page-${randomBytes(4).toString("hex")}`;
    const ids = Array.from({ length: 600 }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);
    // One callback of 600 statuses, as Meta batches them.
    const batch = c.status(ids[0]!, "read") as {
      entry: Array<{ changes: Array<{ value: { statuses: Array<Record<string, unknown>> } }> }>;
    };
    const statuses = batch.entry[0]!.changes[0]!.value.statuses;
    for (const id of ids.slice(1)) statuses.push({ ...statuses[0], id });
    expect(await callback(batch)).toEqual(received);
    expect((await kept()).length).toBe(600);
    // The two that sort last get their messages without the send's look (as in the first test).
    for (const id of ids.slice(-2)) {
      const sent = await c.send();
      await store()
        .db.updateTable("messages")
        .set({ upstream_id: id })
        .where("upstream_id", "=", sent.message_id)
        .execute();
    }
    // This look, or upkeep's if it came first: either reads past the first page of 500.
    await events().applyKept();
    await until(
      async () => (await messageStatus(ids.at(-1)!)) === "read" && (await messageStatus(ids.at(-2)!)) === "read",
    );
    expect((await kept()).length).toBe(598);
    expect(await c.reports(ids.at(-1)!)).toEqual(["read"]);
  }, 30_000);
});
