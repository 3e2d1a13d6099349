// A webhook URL changed or removed (PUT /api/v2/webhooks) takes the account's deliveries still
// open with it (audit-ops finding 6): a pending one goes to the new URL at once, with the
// message's later events behind it in order; one under way retries at the new URL; each attempt
// keeps the URL it used. A removed URL gives its deliveries up, saying why. A report written just
// after another process changed the URL, before its signal arrives, goes to the new URL the first
// time too. Through the running gateway and its own sender (5 s before a first retry).
import { expect, it } from "vitest";
import type { Store } from "../../../src/base/store/store.js";
import { setWebhookUrls } from "../../../src/domain/webhooks/settings.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, keyOf, sendSms, waitForStatus } from "../../helpers/sms.js";
import { outboxSettled, receiver, until, useReceivers } from "./receiver.js";

useReceivers();

/**
 * The store as another process sees it: what it commits is there, but its signals do not reach
 * this one (SQLite sends none between processes; on PostgreSQL a NOTIFY is still on its way).
 */
function unheard(store: Store): Store {
  return Object.assign(Object.create(store) as Store, {
    signals: { notify: async () => undefined, listen: () => () => undefined },
  });
}

interface Delivery {
  id: number;
  url: string;
  status: string;
  attempts: number;
  last_error: string | null;
  payload: { status: string; message_id: string };
  attempts_log: { attempt: number; url: string; status_code: number | null }[];
}

describeEachEngine("webhook deliveries follow the account's URL", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });

  const setUrl = async (t: TestGateway, account: TestAccount, url: string | null) => {
    const answer = await call(t, "PUT", "/api/v2/webhooks", {
      headers: keyOf(account),
      json: { delivery_report: url },
    });
    expect(answer.status, answer.text).toBe(200);
  };
  const deliveries = async (t: TestGateway, account: TestAccount): Promise<Delivery[]> => {
    const answer = await call(t, "GET", "/api/v2/webhooks/deliveries?per_page=100", { headers: keyOf(account) });
    expect(answer.status, answer.text).toBe(200);
    return (answer.body.data as Delivery[]).reverse();
  };
  /** Sends one SMS, waits for its report, and for its `submitted` event's first attempt to be recorded as failed. */
  const sendFailing = async (t: TestGateway, account: TestAccount) => {
    const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "Hello" });
    expect(sent.status, sent.text).toBe(200);
    await waitForStatus(t, account, sent.body.data.message_id);
    await until(async () => {
      const first = (await deliveries(t, account))[0];
      return first?.status === "pending" && first.attempts === 1;
    });
  };

  it("sends a pending delivery and the events behind it to the new URL at once, each attempt with its URL", async () => {
    const t = gateway();
    const broken = await receiver();
    broken.answer = () => 500;
    const fixed = await receiver();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    await setUrl(t, account, broken.url);
    await sendFailing(t, account);
    expect(broken.received).toHaveLength(1);

    await setUrl(t, account, fixed.url);
    // Its retry was 5 s away at the old URL; it goes now, and the delivered report after it.
    await until(() => fixed.received.length >= 2);
    expect(fixed.bodies().map((body) => body.status)).toEqual(["submitted", "delivered"]);
    await outboxSettled(t.db.store, fixed.url);
    expect(broken.received).toHaveLength(1);
    const [submitted, delivered] = await deliveries(t, account);
    expect(submitted).toMatchObject({ url: fixed.url, status: "delivered", attempts: 2 });
    expect(submitted!.attempts_log.map((a) => [a.attempt, a.url, a.status_code])).toEqual([
      [1, broken.url, 500],
      [2, fixed.url, 200],
    ]);
    expect(delivered).toMatchObject({ url: fixed.url, status: "delivered", attempts: 1 });
  });

  it("hands a report written just after another process changed the URL to the new URL, not the cached old one", async () => {
    const t = gateway();
    const old = await receiver();
    const fresh = await receiver();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    await setUrl(t, account, old.url);
    // A first message's reports fill this process's cache of the account's URLs (kept 2 s).
    const first = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "Hello" });
    await waitForStatus(t, account, first.body.data.message_id);
    await until(() => old.received.length === 2);
    // Another process changes it: committed, its signal not heard here.
    await setWebhookUrls(unheard(t.db.store), t.clock, account.id, { delivery_report: fresh.url });
    const second = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "Hello" });
    await waitForStatus(t, account, second.body.data.message_id);
    const ofSecond = async () =>
      (await deliveries(t, account)).filter((d) => d.payload.message_id === second.body.data.message_id);
    await until(async () => {
      const done = await ofSecond();
      return done.length === 2 && done.every((d) => d.status === "delivered");
    });
    // Each went out at the new URL, the first attempt too: nothing more reached the old one.
    for (const d of await ofSecond()) expect(d.attempts_log.map((a) => a.url)).toEqual([fresh.url]);
    expect(fresh.bodies().map((body) => body.status)).toEqual(["submitted", "delivered"]);
    expect(old.received).toHaveLength(2);
  });

  it("gives up the deliveries of a removed URL, saying why, and posts nothing more there", async () => {
    const t = gateway();
    const broken = await receiver();
    broken.answer = () => 500;
    const account = await buildAccount(t, { credits: { sms: 10 } });
    await setUrl(t, account, broken.url);
    await sendFailing(t, account);
    await setUrl(t, account, null);
    const open = await deliveries(t, account);
    expect(open.map((d) => [d.payload.status, d.status])).toEqual([
      ["submitted", "failed"],
      ["delivered", "failed"],
    ]);
    for (const d of open) expect(d.last_error).toMatch(/removed its webhook URL/);
    await outboxSettled(t.db.store, broken.url);
    expect(broken.received).toHaveLength(1);
  });

  it("retries at the new URL a delivery whose attempt was under way when the URL changed; gives it up if removed", async () => {
    const t = gateway();
    for (const next of ["changed", "removed"] as const) {
      const hanging = await receiver();
      hanging.answer = () => "hang";
      const fixed = await receiver();
      const account = await buildAccount(t, { credits: { sms: 10 } });
      await setUrl(t, account, hanging.url);
      const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "Hello" });
      await until(() => hanging.received.length === 1);
      expect((await deliveries(t, account))[0]).toMatchObject({ status: "delivering", url: hanging.url });
      await setUrl(t, account, next === "changed" ? fixed.url : null);
      // The attempt under way ends with a connection error.
      await hanging.stop();
      if (next === "removed") {
        await until(async () => (await deliveries(t, account))[0]?.status === "failed");
        const [given] = await deliveries(t, account);
        expect(given!.last_error).toMatch(/removed its webhook URL/);
        expect(given!.attempts_log.map((a) => a.url)).toEqual([hanging.url]);
        continue;
      }
      await waitForStatus(t, account, sent.body.data.message_id);
      await until(() => fixed.received.length >= 2);
      expect(fixed.bodies().map((body) => body.status)).toEqual(["submitted", "delivered"]);
      const [submitted] = await deliveries(t, account);
      expect(submitted!.attempts_log.map((a) => [a.url, a.status_code])).toEqual([
        [hanging.url, null],
        [fixed.url, 200],
      ]);
    }
  });
});
