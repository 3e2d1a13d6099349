// A batch whose outcomes cannot be recorded goes back to the queue at once (PostgreSQL: the
// claim was the failed transaction's row locks; SQLite: the claim was a read), though the
// carrier took it. The dispatcher then pauses before it claims again, 1 s doubling to 15 s, so
// a fault that fails every record does not submit the same batch over and over, however often
// new sends wake it; and once the record succeeds the batch is recorded once.
import { expect, it } from "vitest";
import type { Connector, SubmitResult } from "../../src/dispatch/index.js";
import type { MessageRow } from "../../src/store/schema.js";
import type { WebhookOutbox } from "../../src/webhooks/outbox.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, testDispatcher, useTestGateway } from "../helpers/gateway.js";

class CountingConnector implements Connector {
  readonly name = "counting";
  readonly channel = "sms";
  readonly submits: { id: string; at: number }[] = [];
  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    for (const m of messages) this.submits.push({ id: m.id, at: Date.now() });
    return messages.map((m) => ({ ok: true, upstreamId: `C-${m.id}` }));
  }
  onReports(): void {}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEachEngine("a batch whose record fails", (engine) => {
  // API only: nothing dispatches until the test starts its own dispatcher.
  const gateway = useTestGateway(engine, { roles: ["api"] });

  it("is submitted again only after a pause, however often the dispatcher is woken, and recorded once it can be", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const sent = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { sender_id: "SWBRD", recipient: "9610007001", message: "record me", route: "transactional" },
    });
    expect(sent.status).toBe(200);
    const id: string = sent.body.data.message_id;

    // The record writes the batch's `submitted` events: an outbox that fails them fails the record.
    let failing = true;
    const outbox = {
      handoff: () => undefined,
      deliveryReports: async () => {
        if (failing) throw new Error("the database is away");
        return 0;
      },
    } as unknown as WebhookOutbox;
    const connector = new CountingConnector();
    const dispatcher = testDispatcher(t, connector, { idleMs: 20 }, { webhooks: outbox });
    dispatcher.start();
    const waking = setInterval(() => dispatcher.wake(), 5);
    try {
      const ofMessage = () => connector.submits.filter((s) => s.id === id);
      const until = Date.now() + 10_000;
      while (ofMessage().length < 2 && Date.now() < until) await sleep(20);
      // Woken every 5 ms, yet submitted again only after the 1 s pause, and not a third time
      // within the next second (the pause after the second failure is 2 s).
      await sleep(1_000);
      const submits = ofMessage();
      expect(submits).toHaveLength(2);
      expect(submits[1]!.at - submits[0]!.at).toBeGreaterThanOrEqual(900);
      const row = await t.db.store.db.selectFrom("messages").select("status").where("id", "=", id).executeTakeFirst();
      expect(row?.status).toBe("queued");

      failing = false;
      const deadline = Date.now() + 10_000;
      let status = "queued";
      while (status !== "submitted" && Date.now() < deadline) {
        await sleep(50);
        const now = await t.db.store.db.selectFrom("messages").select("status").where("id", "=", id).executeTakeFirst();
        status = now?.status ?? "missing";
      }
      expect(status).toBe("submitted");
    } finally {
      clearInterval(waking);
      await dispatcher.stop();
    }
  });
});
