// A message whose route has no connector up (down, or disabled) is held, not tried: waiting
// spends none of its attempts, however many times it is claimed, and it goes once a connector
// is up. Only when it has been held for the bound (MESSAGE_VALIDITY_HOURS, counted from its
// first finding no connector) does it fail, refunded.
import { expect, it } from "vitest";
import { createLogger } from "../../../src/app/gateway.js";
import { createMetrics } from "../../../src/base/runtime/metrics.js";
import type { MessageRow } from "../../../src/base/store/schema.js";
import { type Connector, Dispatcher, Router, type SubmitResult } from "../../../src/delivery/dispatch/index.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { balanceOf } from "../../helpers/sms.js";

class Carrier implements Connector {
  readonly name = "carrier";
  readonly channel = "sms";
  readonly sent: MessageRow[] = [];
  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    this.sent.push(...messages);
    return messages.map((m) => ({ ok: true, upstreamId: `K-${m.id}` }));
  }
  onReports(): void {}
}

describeEachEngine("a route with no connector up", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });

  function dispatcherOf(t: TestGateway, connector: Connector, isUp: () => boolean, holdForMs?: number) {
    const router = new Router([connector], {
      routes: [{ route: "T", prefix: "", connectors: [{ name: connector.name, weight: 1 }] }],
      isUp,
    });
    return new Dispatcher(
      {
        store: t.db.store,
        clock: t.clock,
        logger: createLogger({ logLevel: "silent" }),
        metrics: createMetrics({ defaultMetrics: false }),
      },
      router,
      { batchSize: 100, idleMs: 20, maxAttempts: 3, ...(holdForMs !== undefined ? { holdForMs } : {}) },
    );
  }

  async function sendOne(t: TestGateway, apiKey: string, recipient: string): Promise<string> {
    const sent = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${apiKey}` },
      json: { sender_id: "SWBRD", recipient, message: "held", route: "transactional" },
    });
    expect(sent.status).toBe(200);
    return sent.body.data.message_id;
  }

  const rowOf = (t: TestGateway, id: string) =>
    t.db.store.db
      .selectFrom("messages")
      .select(["status", "attempts", "error_code", "error_message", "due_at", "held_since"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  it("holds its messages without spending attempts, and sends them once a connector is up", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const id = await sendOne(t, account.apiKey, "9610008001");
    // Accepted three days ago (as a message scheduled then for now): the hold counts from its
    // first finding no connector, not from its acceptance.
    await t.db.store.db
      .updateTable("messages")
      .set({ created_at: Date.now() - 3 * 24 * 3_600_000 })
      .where("id", "=", id)
      .execute();
    let up = false;
    const carrier = new Carrier();
    const dispatcher = dispatcherOf(t, carrier, () => up);
    dispatcher.start();
    try {
      // Claimed and held six times, twice the attempts a failing submit gets (maxAttempts 3).
      let heldSince: number | null = null;
      for (let round = 0; round < 6; round++) {
        await until(async () => {
          const row = await rowOf(t, id);
          return row.error_code === "connectors_down" && row.due_at > Date.now();
        });
        const row = await rowOf(t, id);
        expect(row).toMatchObject({ status: "queued", attempts: 0 });
        heldSince ??= row.held_since;
        expect(row.held_since).toBe(heldSince);
        expect(row.error_message).toBe("No connector of the route T/* is up: carrier down.");
        // As if its wait had passed.
        await t.db.store.db.updateTable("messages").set({ due_at: Date.now() }).where("id", "=", id).execute();
      }
      // Its timeline says it is held, and why (not "scheduled", though it is unattempted and due later).
      await until(async () => (await rowOf(t, id)).due_at > Date.now());
      const view = await call(t, "GET", `/api/v2/messages/${id}`, {
        headers: { authorization: `Bearer ${account.apiKey}` },
      });
      expect(view.status).toBe(200);
      const timeline = view.body.data.timeline as { event: string; detail: string | null }[];
      expect(timeline.map((e) => e.event)).toEqual(["accepted", "held"]);
      expect(timeline[1]!.detail).toMatch(
        /is up: carrier down\. Looked at again \d{4}-.*, or when a connector comes back\.$/,
      );
      up = true;
      await until(async () => (await rowOf(t, id)).status === "submitted");
      expect(await rowOf(t, id)).toMatchObject({ attempts: 1 });
      expect(carrier.sent.map((m) => m.id)).toEqual([id]);
      expect(await balanceOf(t, account)).toBe(99);
    } finally {
      await dispatcher.stop();
    }
  });

  it("fails and refunds a message that has waited the hold bound", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const id = await sendOne(t, account.apiKey, "9610008002");
    expect(await balanceOf(t, account)).toBe(99);
    // Held since an hour and a minute ago, for an hour at most.
    await t.db.store.db
      .updateTable("messages")
      .set({ error_code: "connectors_down", held_since: Date.now() - 61 * 60_000 })
      .where("id", "=", id)
      .execute();
    const carrier = new Carrier();
    const dispatcher = dispatcherOf(t, carrier, () => false, 60 * 60_000);
    dispatcher.start();
    try {
      await until(async () => (await rowOf(t, id)).status === "failed");
    } finally {
      await dispatcher.stop();
    }
    const row = await rowOf(t, id);
    expect(row.error_code).toBe("connectors_down");
    expect(row.error_message).toContain("waited 1 h (MESSAGE_VALIDITY_HOURS)");
    expect(carrier.sent).toEqual([]);
    expect(await balanceOf(t, account)).toBe(100);
  });
});
