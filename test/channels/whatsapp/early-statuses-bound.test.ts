// Meta's statuses kept for wamids no message carries (decision 0191) are bounded in number: past
// the most kept the oldest go, counted and logged once per callback, also when callbacks come at
// once to several processes; those within it still apply when their send commits. The retry from
// memory applies a status that came before its send's commit, and tries again only those it left.
// The gateway runs the api role only, so no upkeep applies or drops kept statuses meanwhile. The
// most kept (10,000 in a gateway) is given small to the WhatsAppEvents of a test's "process",
// which takes parsed callbacks as the webhook route hands them over.
import { randomBytes } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { WhatsAppEvents } from "../../../src/channels/whatsapp/events.js";
import { parseMetaWebhook } from "../../../src/channels/whatsapp/meta-webhook.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestGateway } from "../../helpers/gateway.js";
import { type FakeGraph, startFakeGraph, statusCallback } from "./fake-graph.js";
import { APP_SECRET, connectToFakeBusiness, templateSend } from "./helpers.js";

const TO = "919876543210";
const DROPPED = 'switchboard_early_reports_dropped_total{reason="whatsapp_over_limit"} ';
const WARNING = "kept WhatsApp statuses dropped, oldest first";

describeEachEngine("a bound on the WhatsApp statuses kept before their message", (engine) => {
  const clock = new ManualClock(new Date());
  let fake: FakeGraph;
  let t: TestGateway;
  const processes: WhatsAppEvents[] = [];

  beforeAll(async () => {
    fake = await startFakeGraph();
    t = await startTestGateway(engine, {
      clock,
      roles: ["api"],
      env: {
        WHATSAPP_CONNECTOR: "whatsapp-cloud",
        WHATSAPP_GRAPH_URL: fake.url,
        WHATSAPP_APP_SECRET: APP_SECRET,
        WHATSAPP_TIMEOUT_MS: "2000",
        SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
        // The gateway's own bound, at its least; the other tests' processes keep fewer.
        WHATSAPP_EARLY_STATUSES_MAX: "100",
      },
    });
  });
  afterAll(async () => {
    for (const events of processes) events.close();
    await t?.gateway.stop();
    await t?.db.drop();
    await fake?.close();
  });
  // Each test starts with nothing kept: the bound counts every wamid's.
  beforeEach(async () => {
    await t.db.store.db.deleteFrom("whatsapp_early_statuses").execute();
  });

  /** Another process's WhatsApp events on the gateway's database, keeping at most `max`; its warnings' counts in `warned`. */
  function processKeeping(max: number, warned: number[] = []): WhatsAppEvents {
    const logger = pino(
      { level: "warn" },
      {
        write(line: string) {
          const entry = JSON.parse(line) as { msg: string; count: number };
          if (entry.msg.startsWith(WARNING)) warned.push(entry.count);
        },
      },
    );
    const events = new WhatsAppEvents({ ...t.gateway.ctx.whatsapp.deps, logger, maxKeptStatuses: max });
    processes.push(events);
    return events;
  }

  /** A funded account on the fake's business account; its sends, Meta's status callbacks and its delivery reports. */
  async function customer() {
    const account = await buildAccount(t, { credits: { whatsapp: 10 }, sender: null });
    const { phoneNumberId, wabaId } = await connectToFakeBusiness(fake, t.db.store.db, clock, account.id);
    const v2 = (method: string, path: string, json: unknown) =>
      call(t, method, `/api/v2${path}`, { headers: { authorization: `Bearer ${account.apiKey}` }, json });
    // Queued in the outbox (no worker here sends them), where the reports are read.
    expect((await v2("PUT", "/webhooks", { delivery_report: "http://127.0.0.1:9/reports" })).status).toBe(200);
    return {
      /** A template send that the fake answers with `wamid` (a fresh one when not given). */
      send: (wamid?: string) => templateSend(fake, v2, TO, wamid),
      /** One callback of Meta's with a status of each of `ids`, in that order. */
      statuses(ids: readonly string[], status: "delivered" | "read") {
        const callback = statusCallback({
          wabaId,
          phoneNumberId,
          messageId: ids[0]!,
          status,
          recipientId: TO,
          at: clock.now().getTime(),
        }) as { entry: Array<{ changes: Array<{ value: { statuses: Array<Record<string, unknown>> } }> }> };
        const list = callback.entry[0]!.changes[0]!.value.statuses;
        for (const id of ids.slice(1)) list.push({ ...list[0], id });
        return callback;
      },
      /** The delivery_report statuses queued for a wamid. */
      async reports(wamid: string) {
        const rows = await t.db.store.db
          .selectFrom("webhook_deliveries")
          .select("payload")
          .where("account_id", "=", account.id)
          .where("event", "=", "delivery_report")
          .orderBy("id")
          .execute();
        return rows
          .map((row) => JSON.parse(row.payload) as { message_id: string; status: string })
          .filter((report) => report.message_id === wamid)
          .map((report) => report.status);
      },
    };
  }

  const wamids = (name: string, n: number) => {
    const prefix = `wamid.${name}-${randomBytes(4).toString("hex")}`;
    return Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(2, "0")}`);
  };
  const kept = async () =>
    (
      await t.db.store.db
        .selectFrom("whatsapp_early_statuses")
        .select(["upstream_id", "status"])
        .orderBy("upstream_id")
        .orderBy("status")
        .execute()
    ).map((row) => `${row.upstream_id} ${row.status}`);
  const messageStatus = async (wamid: string) =>
    (await t.db.store.db.selectFrom("messages").select("status").where("upstream_id", "=", wamid).executeTakeFirst())
      ?.status;
  const dropped = async () => {
    const line = (await call(t, "GET", "/metrics")).text.split("\n").find((l) => l.startsWith(DROPPED));
    return Number(line?.slice(DROPPED.length) ?? 0);
  };
  /** A message the gateway sent, now carrying `wamid`: its send's look at the kept statuses missed it. */
  const recordWithoutLook = async (sent: { message_id: string }, wamid: string) => {
    await t.db.store.db
      .updateTable("messages")
      .set({ upstream_id: wamid })
      .where("upstream_id", "=", sent.message_id)
      .execute();
  };

  it("keeps the newest past the most kept, the oldest dropped with a count and one warning per callback", async () => {
    const c = await customer();
    const warned: number[] = [];
    const events = processKeeping(4, warned);
    const before = await dropped();
    const ids = wamids("bound", 9);
    // Six callbacks, one status each, a millisecond apart: the fifth and sixth drop the oldest.
    for (const id of ids.slice(0, 6)) {
      await events.apply(parseMetaWebhook(c.statuses([id], "delivered")));
      clock.advance(1);
    }
    expect(await kept()).toEqual(ids.slice(2, 6).map((id) => `${id} delivered`));
    expect((await dropped()) - before).toBe(2);
    // One callback of three: the three oldest go together, with one warning.
    await events.apply(parseMetaWebhook(c.statuses(ids.slice(6), "delivered")));
    expect(await kept()).toEqual(ids.slice(5).map((id) => `${id} delivered`));
    expect((await dropped()) - before).toBe(5);
    expect(warned).toEqual([1, 1, 3]);

    // Through the gateway: a send that records a kept wamid applies its status at once; one whose
    // status was dropped stays sent.
    await c.send(ids[8]);
    expect(await messageStatus(ids[8]!)).toBe("delivered");
    expect(await c.reports(ids[8]!)).toEqual(["sent", "delivered"]);
    expect(await kept()).toEqual(ids.slice(5, 8).map((id) => `${id} delivered`));
    await c.send(ids[0]);
    expect(await messageStatus(ids[0]!)).toBe("sent");
    expect(await c.reports(ids[0]!)).toEqual(["sent"]);
  });

  it("keeps at most WHATSAPP_EARLY_STATUSES_MAX of the statuses Meta posts to the gateway", async () => {
    const c = await customer();
    const before = await dropped();
    const ids = wamids("setting", 101);
    // One signed callback of 101 statuses, all kept at the same time: the first in wamid order goes.
    const answer = await fake.sendWebhook(`${t.url}/webhooks/whatsapp`, c.statuses(ids, "delivered"), {
      appSecret: APP_SECRET,
    });
    expect(answer.status, answer.body).toBe(200);
    expect(await kept()).toEqual(
      ids
        .slice(1)
        .sort()
        .map((id) => `${id} delivered`),
    );
    expect((await dropped()) - before).toBe(1);
  });

  it("stays bounded when callbacks come to several processes at once, each status kept or dropped once", async () => {
    const c = await customer();
    const before = await dropped();
    const four = [0, 1, 2, 3].map(() => processKeeping(4));
    // Four kept, then four processes each take a callback of two at the same time: each finds
    // the table past the bound and drops from the same oldest rows.
    const full = wamids("full", 4);
    await four[0]!.apply(parseMetaWebhook(c.statuses(full, "read")));
    clock.advance(1);
    // Connections ready for each (PostgreSQL opens them as asked for), so that the four overlap.
    await Promise.all(four.map(() => t.db.store.db.selectFrom("accounts").select("id").limit(1).execute()));
    const ids = wamids("together", 8);
    await Promise.all(
      four.map((events, i) => events.apply(parseMetaWebhook(c.statuses(ids.slice(2 * i, 2 * i + 2), "read")))),
    );
    // Each row kept is still there or was dropped, and counted, by exactly one of them.
    const left = await kept();
    expect(left.length + (await dropped()) - before).toBe(12);
    expect(left.filter((row) => row.includes(".full-"))).toEqual([]);
    // The next callback leaves the newest four: its own two among them.
    clock.advance(1);
    const last = wamids("after", 2);
    await four[0]!.apply(parseMetaWebhook(c.statuses(last, "read")));
    const now = await kept();
    expect(now.length).toBe(4);
    expect(now).toEqual(expect.arrayContaining(last.map((id) => `${id} read`)));
    expect((await dropped()) - before).toBe(10);

    // Callbacks naming the same wamids in other orders, at once, under the gateway's bound: each
    // is kept once and none waits on another for good.
    const shared = wamids("shared", 20);
    const orders = [shared, [...shared].reverse(), [...shared.slice(10), ...shared.slice(0, 10)]];
    await Promise.all(
      orders.map((order) => processKeeping(10_000).apply(parseMetaWebhook(c.statuses(order, "delivered")))),
    );
    expect((await kept()).filter((row) => row.includes(".shared-"))).toEqual(shared.map((id) => `${id} delivered`));
  });

  it("applies by the retry from memory a status that came before its send's commit, then the ones it left", async () => {
    const c = await customer();
    const [first, second] = wamids("retry", 2) as [string, string];
    // The messages exist, their wamids not yet recorded when Meta's statuses come.
    const sentFirst = await c.send();
    const sentSecond = await c.send();
    const callback = await fake.sendWebhook(`${t.url}/webhooks/whatsapp`, c.statuses([first, second], "delivered"), {
      appSecret: APP_SECRET,
    });
    expect(callback).toEqual({ status: 200, body: "EVENT_RECEIVED" });
    expect(await kept()).toEqual([`${first} delivered`, `${second} delivered`]);
    // The first is recorded within the second the first retry waits; the other after that retry.
    await recordWithoutLook(sentFirst, first);
    await until(async () => (await messageStatus(first)) === "delivered", 10_000);
    expect(await kept()).toEqual([`${second} delivered`]);
    await recordWithoutLook(sentSecond, second);
    await until(async () => (await messageStatus(second)) === "delivered", 15_000);
    expect(await kept()).toEqual([]);
    expect(await c.reports(first)).toEqual(["delivered"]);
    expect(await c.reports(second)).toEqual(["delivered"]);
  }, 30_000);
});
