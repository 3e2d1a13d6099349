// The simulator's statuses wait on timers of the process that took the send. A gateway stopped
// before them (as a SIGTERM or a rolling restart stops it; kill -9 leaves the same rows) and
// started again on the same database reports them: each message reaches its simulator outcome,
// at the times it was due, with one webhook per status, even with a second walk at the same time.
import { expect, it } from "vitest";
import { createLogger, type Gateway, startGateway } from "../../../src/app/gateway.js";
import { ManualClock } from "../../../src/base/core/clock.js";
import { LOST_AFTER_MS, LostSimulatedStatuses } from "../../../src/channels/whatsapp/lost-statuses.js";
import { outboxSettled, receiver, until, useReceivers } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, testConfig } from "../../helpers/gateway.js";
import { connectSimulatedWhatsApp, whatsappWallet } from "./helpers.js";

const LATENCY_MS = 60_000;
const env = { WHATSAPP_SIMULATOR_LATENCY_MS: String(LATENCY_MS), SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" };
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describeEachEngine("WhatsApp simulator across a restart", (engine) => {
  useReceivers();

  it("reports the statuses a stopped gateway left: delivered and read, failed, delivered only; once each", async () => {
    const clock = new ManualClock(new Date());
    const first = await startTestGateway(engine, { clock, env });
    let second: Gateway | undefined;
    try {
      const account = await buildAccount(first, { credits: { whatsapp: 10 }, sender: null });
      await connectSimulatedWhatsApp(first, account.id);
      const hook = await receiver();
      const v2 = (url: string, method: string, path: string, json?: unknown) =>
        call({ ...first, url }, method, `/api/v2${path}`, {
          headers: { authorization: `Bearer ${account.apiKey}` },
          ...(json !== undefined ? { json } : {}),
        });
      expect((await v2(first.url, "PUT", "/webhooks", { delivery_report: hook.url })).status).toBe(200);
      const send = async (to: string) => {
        const sent = await v2(first.url, "POST", "/whatsapp/send", { to, template: "otp_code", params: ["1"] });
        expect(sent.status, sent.text).toBe(200);
        return sent.body.data as { id: number; message_id: string };
      };
      const read = await send("919876543261");
      const failed = await send("919876500002");
      const unread = await send("919876500001");
      // As if the process had stopped between delivered and read.
      const halfway = await send("919876543262");
      const sentAt = clock.now().getTime();
      await first.db.store.db
        .updateTable("messages")
        .set({ status: "delivered", delivered_at: sentAt + LATENCY_MS, done_at: sentAt + LATENCY_MS })
        .where("upstream_id", "=", halfway.message_id)
        .execute();

      // Stopped a minute before the first status was due: its timers go with it.
      await first.gateway.stop();
      const statuses = async () =>
        (
          await first.db.store.db
            .selectFrom("messages")
            .select(["upstream_id", "status"])
            .where("account_id", "=", account.id)
            .orderBy("broadcast_id")
            .execute()
        ).map((r) => r.status);
      expect(await statuses()).toEqual(["sent", "sent", "sent", "delivered"]);

      // Started again on the same database once every status is past due: the start's look
      // reports them, and another walk at the same time (a second process's) changes nothing more.
      clock.advance(2 * LATENCY_MS + LOST_AFTER_MS + 1_000);
      second = await startGateway({
        config: testConfig(first.db, env),
        roles: ["api", "worker"],
        clock,
        store: first.db.store,
        logger: createLogger({ logLevel: "silent" }),
        openApiAtStart: false,
      });
      const other = new LostSimulatedStatuses({
        store: first.db.store,
        clock,
        events: second.ctx.whatsapp.events,
        latencyMs: LATENCY_MS,
      });
      await other.runOnce();
      await until(async () => (await statuses()).join() === "read,failed,delivered,read", 10_000);

      const url = second.url;
      const status = async (id: number) => (await v2(url, "GET", `/whatsapp/status/${id}`)).body.data;
      const readNow = await status(read.id);
      expect(readNow).toMatchObject({ status: "read", error: null });
      expect(Date.parse(readNow.delivered_at)).toBeGreaterThanOrEqual(Date.parse(iso(sentAt + LATENCY_MS)) - 1000);
      expect(Date.parse(readNow.read_at) - Date.parse(readNow.delivered_at)).toBeGreaterThanOrEqual(LATENCY_MS - 1000);
      expect(await status(failed.id)).toMatchObject({ status: "failed", error: { code: 131026 } });
      expect((await status(unread.id)).status).toBe("delivered");
      expect((await status(halfway.id)).status).toBe("read");
      expect(await whatsappWallet(first, account.id)).toEqual({ balance: 6, held: 0 });

      await outboxSettled(first.db.store, hook.url);
      const events = hook.bodies() as { message_id: string; status: string; error?: { code: number } }[];
      const of = (messageId: string) => events.filter((e) => e.message_id === messageId).map((e) => e.status);
      expect(of(read.message_id)).toEqual(["sent", "delivered", "read"]);
      expect(of(failed.message_id)).toEqual(["sent", "failed"]);
      expect(events.find((e) => e.message_id === failed.message_id && e.status === "failed")?.error).toMatchObject({
        code: 131026,
      });
      expect(of(unread.message_id)).toEqual(["sent", "delivered"]);
      expect(of(halfway.message_id)).toEqual(["sent", "read"]);
      // Nothing is left to report: a later look finds nothing.
      expect(await other.runOnce()).toBe(0);
    } finally {
      await second?.stop();
      await first.db.drop();
    }
  }, 60_000);
});
