// A batch whose outcomes cannot be recorded (the database away) goes back to the queue
// (PostgreSQL: the claim was the failed transaction's row locks; SQLite: the claim was a read),
// though the carrier took it. The dispatcher keeps what the carrier took and records it before it
// claims anything else, pausing 100 ms doubling to 1 s between attempts however often new sends
// wake it, so the message is not sent a second time; the connector then hears which messages were
// recorded late (a receipt may have come meanwhile). A record that keeps failing past the
// give-up bound is given up, and the message is sent again rather than the dispatcher stopping.
import { expect, it } from "vitest";
import type { MessageRow } from "../../../src/base/store/schema.js";
import type { Connector, SubmitResult } from "../../../src/delivery/dispatch/index.js";
import type { WebhookOutbox } from "../../../src/domain/webhooks/outbox.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestGateway, testDispatcher, useTestGateway } from "../../helpers/gateway.js";

class CountingConnector implements Connector {
  readonly name = "counting";
  readonly channel = "sms";
  readonly submits: { id: string; at: number }[] = [];
  readonly recordedLateIds: string[] = [];
  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    for (const m of messages) this.submits.push({ id: m.id, at: Date.now() });
    return messages.map((m) => ({ ok: true, upstreamId: `C-${m.id}-${this.submits.length}` }));
  }
  async recordedLate(messageIds: string[]): Promise<void> {
    this.recordedLateIds.push(...messageIds);
  }
  onReports(): void {}
}

async function send(t: TestGateway, apiKey: string, recipient: string): Promise<string> {
  const sent = await call(t, "POST", "/api/v2/sms/send", {
    headers: { authorization: `Bearer ${apiKey}` },
    json: { sender_id: "SWBRD", recipient, message: "record me", route: "transactional" },
  });
  expect(sent.status).toBe(200);
  return sent.body.data.message_id;
}

/** The record writes the batch's `submitted` events: an outbox that fails them fails the record. */
function failingOutbox() {
  const state = { failing: true, attempts: 0, times: [] as number[], events: [] as { id: string; status: string }[] };
  const outbox = {
    handoff: () => undefined,
    deliveryReports: async (_trx: unknown, events: { id: string; status: string }[]) => {
      state.attempts++;
      state.times.push(Date.now());
      if (state.failing) throw new Error("the database is away");
      state.events.push(...events.map((e) => ({ id: e.id, status: e.status })));
      return 0;
    },
  } as unknown as WebhookOutbox;
  return { outbox, state };
}

// The engines' suites run at the same time: their time is waits for the dispatcher's pauses.
describeEnginesTogether("a batch whose record fails", (engine) => {
  // API only: nothing dispatches until the test starts its own dispatcher.
  const gateway = useTestGateway(engine, { roles: ["api"] });
  /** A message sent, and a dispatcher started whose records fail while `state.failing`. */
  async function failingDispatch(recipient: string, options: Parameters<typeof testDispatcher>[2] = {}) {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const id = await send(t, account.apiKey, recipient);
    const { outbox, state } = failingOutbox();
    const connector = new CountingConnector();
    const dispatcher = testDispatcher(t, connector, { idleMs: 20, ...options }, { webhooks: outbox });
    dispatcher.start();
    return { t, account, id, state, connector, dispatcher };
  }

  const row = (t: TestGateway, id: string) =>
    t.db.store.db
      .selectFrom("messages")
      .select(["status", "upstream_id", "connector"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  it("is recorded as first submitted once the database answers, never sent again, however often the dispatcher is woken", async () => {
    const { t, account, id, state, connector, dispatcher } = await failingDispatch("9610007001");
    const waking = setInterval(() => dispatcher.wake(), 5);
    try {
      // Woken every 5 ms, the record is tried again after 100 ms (the failed round's pause), then
      // 100 ms doubling to 1 s, and the message is not claimed or sent again meanwhile.
      await until(() => state.attempts >= 5);
      const pauses = state.times.slice(1, 5).map((at, i) => at - state.times[i]!);
      expect(
        pauses.every((pause, i) => pause >= [95, 95, 190, 380][i]!),
        `pauses ${pauses}`,
      ).toBe(true);
      expect(connector.submits.map((s) => s.id)).toEqual([id]);
      expect((await row(t, id)).status).toBe("queued");

      state.failing = false;
      await until(async () => (await row(t, id)).status === "submitted");
      expect(await row(t, id)).toEqual({ status: "submitted", upstream_id: `C-${id}-1`, connector: "counting" });
      expect(connector.submits.map((s) => s.id)).toEqual([id]);
      expect(state.events).toEqual([{ id, status: "submitted" }]);
      expect(connector.recordedLateIds).toEqual([id]);

      // And the dispatcher goes on: a message sent now is dispatched as usual, once.
      const next = await send(t, account.apiKey, "9610007002");
      await until(async () => (await row(t, next)).status === "submitted");
      expect(connector.submits.map((s) => s.id)).toEqual([id, next]);
      expect(connector.recordedLateIds).toEqual([id]);
    } finally {
      clearInterval(waking);
      await dispatcher.stop();
    }
  });

  it("records only what is still waiting to be sent: a message that changed meanwhile is left as it is", async () => {
    const { t, account, id, state, connector, dispatcher } = await failingDispatch("9610007003");
    try {
      await until(() => state.attempts >= 1);
      // Meanwhile another worker sent and recorded it (its own upstream id).
      await t.db.store.db
        .updateTable("messages")
        .set({ status: "submitted", connector: "other", upstream_id: "OTHER-1", submitted_at: Date.now() })
        .where("id", "=", id)
        .execute();
      state.failing = false;
      // A message sent now is claimed only once the record of the first batch is done.
      const next = await send(t, account.apiKey, "9610007005");
      await until(async () => (await row(t, next)).status === "submitted");
      expect(await row(t, id)).toEqual({ status: "submitted", upstream_id: "OTHER-1", connector: "other" });
      expect(state.events).toEqual([{ id: next, status: "submitted" }]);
      expect(connector.recordedLateIds).toEqual([]);
      expect(connector.submits.map((s) => s.id)).toEqual([id, next]);
    } finally {
      await dispatcher.stop();
    }
  });

  // PostgreSQL alone runs several workers (SQLite has one dispatcher).
  if (engine === "postgres") {
    it("another worker back from the same outage claims only after the first has recorded what the carrier took", async () => {
      const { t, id, state, connector, dispatcher } = await failingDispatch("9610007006");
      // A second worker, whose claims fail while `away` (its connection lost in the same outage).
      let away = true;
      let refused = 0;
      /** The second worker's claims that the database answered. */
      let claims = 0;
      const store = {
        ...t.db.store,
        statement(text: string) {
          const statement = t.db.store.statement(text);
          if (!text.includes("skip locked")) return statement;
          return {
            ...statement,
            all: ((trx, params) => {
              if (!away) return statement.all(trx, params).finally(() => claims++);
              refused++;
              return Promise.reject(new Error("Connection terminated unexpectedly"));
            }) as typeof statement.all,
          };
        },
      };
      const other = new CountingConnector();
      const second = testDispatcher(t, other, { idleMs: 20 }, { store });
      try {
        await until(() => state.attempts >= 1);
        second.start();
        await until(() => refused >= 1);
        // The database is back for the second worker at once, and it would claim after its 1 s
        // pause; the first's stays away 1.3 s more (the outage under test), and it records its
        // batch a little later (its next try, within a second).
        away = false;
        await new Promise((resolve) => setTimeout(resolve, 1_300));
        state.failing = false;
        await until(async () => (await row(t, id)).status === "submitted");
        // Two claims of the second worker answered since: a batch claimed by the first of them
        // (in flight when the record landed) was submitted before the second began.
        const before = claims;
        await until(() => claims >= before + 2);
        expect(connector.submits.map((s) => s.id)).toEqual([id]);
        expect(other.submits).toEqual([]);
      } finally {
        await second.stop();
        await dispatcher.stop();
      }
    });
  }

  it("gives up recording after the bound and sends the message again, instead of stopping", async () => {
    const { t, id, state, connector, dispatcher } = await failingDispatch("9610007004", {
      unrecordedGiveUpMs: 500,
    });
    try {
      // The record fails (0 s), and again at 0.1, 0.2, 0.4 and 0.8 s, past the 500 ms bound:
      // given up; the next round claims the message and sends it again.
      await until(() => connector.submits.length >= 2, 10_000);
      state.failing = false;
      await until(async () => (await row(t, id)).status === "submitted");
      const submits = connector.submits.map((s) => s.id);
      expect(submits.slice(0, 2)).toEqual([id, id]);
      expect((await row(t, id)).upstream_id).toBe(`C-${id}-${submits.length}`);
    } finally {
      await dispatcher.stop();
    }
  });
});
