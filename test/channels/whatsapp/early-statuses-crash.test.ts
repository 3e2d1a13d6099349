// A WhatsApp status that came before its message survives a kill -9 of the process that took it
// (decision 0191): real `switchboard start` processes on one database, Meta's callback answered
// 200 by the first, which is then killed; the second records the send whose wamid the status
// names and applies it, once, with one delivery_report.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, it } from "vitest";
import { systemClock } from "../../../src/base/core/clock.js";
import { updateWhatsAppSettings } from "../../../src/channels/whatsapp/settings.js";
import { outboxSettled, suiteReceivers, until } from "../../domain/webhooks/receiver.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { pipelineAccount, useKilledServers } from "../../helpers/killed-servers.js";
import { type FakeGraph, startFakeGraph, statusCallback } from "./fake-graph.js";
import { APP_SECRET, TEMPLATES } from "./helpers.js";

const TO = "919876543210";
const PHONE_NUMBER_ID = "109000000000077";
const WABA_ID = "102000000000077";
const TOKEN = "EAAG-early-statuses-crash";

describeEnginesTogether("a WhatsApp status before its message, across a kill -9", (engine) => {
  const servers = useKilledServers(engine);
  const receiver = suiteReceivers();
  let fake: FakeGraph;
  beforeAll(async () => {
    fake = await startFakeGraph();
    fake.addPhoneNumber(PHONE_NUMBER_ID, WABA_ID, TOKEN);
    fake.setTemplates(WABA_ID, structuredClone(TEMPLATES));
  });
  afterAll(async () => {
    await fake?.close();
  });

  it("is kept by the killed process and applied once by the next", async ({ expect }) => {
    const db = servers.db();
    const env = {
      DATABASE_URL: db.url,
      WHATSAPP_CONNECTOR: "whatsapp-cloud",
      WHATSAPP_GRAPH_URL: fake.url,
      WHATSAPP_APP_SECRET: APP_SECRET,
      SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
    };
    const first = await servers.start(env);
    const account = await pipelineAccount(db, "wa-early", { whatsapp: 10 });
    await updateWhatsAppSettings(db.store.db, systemClock, account.id, {
      enabled: true,
      phone_number_id: PHONE_NUMBER_ID,
      display_phone_number: "15550007777",
      waba_id: WABA_ID,
      access_token: TOKEN,
    });
    const hook = await receiver();
    const v2 = (url: string, method: string, path: string, json: unknown) =>
      fetch(`${url}/api/v2${path}`, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${account.api_key}` },
        body: JSON.stringify(json),
      });
    expect((await v2(first.url, "PUT", "/webhooks", { delivery_report: hook.url })).status).toBe(200);

    const wamid = `wamid.crash-${randomBytes(6).toString("hex")}`;
    const delivered = statusCallback({
      wabaId: WABA_ID,
      phoneNumberId: PHONE_NUMBER_ID,
      messageId: wamid,
      status: "delivered",
      recipientId: TO,
    });
    const answer = await fake.sendWebhook(`${first.url}/webhooks/whatsapp`, delivered, { appSecret: APP_SECRET });
    expect(answer).toEqual({ status: 200, body: "EVENT_RECEIVED" });
    await first.stop("SIGKILL");
    const kept = await db.store.db.selectFrom("whatsapp_early_statuses").select(["upstream_id", "status"]).execute();
    expect(kept).toEqual([{ upstream_id: wamid, status: "delivered" }]);

    const second = await servers.start(env);
    fake.scriptNext({
      status: 200,
      body: { messaging_product: "whatsapp", contacts: [{ input: TO, wa_id: TO }], messages: [{ id: wamid }] },
    });
    const sent = await v2(second.url, "POST", "/whatsapp/send", {
      to: TO,
      template: "order_shipped",
      params: ["A", "B"],
    });
    expect(sent.status, await sent.clone().text()).toBe(200);
    expect(((await sent.json()) as { data: { message_id: string } }).data.message_id).toBe(wamid);
    const status = async () =>
      (await db.store.db.selectFrom("messages").select("status").where("upstream_id", "=", wamid).executeTakeFirst())
        ?.status;
    await until(async () => (await status()) === "delivered", 15_000);
    expect(await db.store.db.selectFrom("whatsapp_early_statuses").selectAll().execute()).toEqual([]);
    await outboxSettled(db.store, hook.url, 15_000);
    const events = hook.bodies() as { message_id: string; status: string }[];
    expect(events.filter((e) => e.message_id === wamid).map((e) => e.status)).toEqual(["sent", "delivered"]);
  }, 120_000);
});
