// Dispatch leases on PostgreSQL: a batch whose connector takes longer than the lease keeps its
// messages (the dispatcher renews the lease while it sends), so housekeeping never hands them to
// another worker to submit a second time; a crashed worker's lease still expires. SQLite's one
// dispatcher holds no leases, so the suite runs on PostgreSQL.
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/app/gateway.js";
import { type Connector, Dispatcher, Router, type SubmitResult } from "../../src/dispatch/index.js";
import { claimDueMessages, requeueExpiredLeases } from "../../src/messages/index.js";
import { createMetrics } from "../../src/runtime/metrics.js";
import type { MessageRow } from "../../src/store/schema.js";
import { postgresAvailable } from "../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../helpers/gateway.js";

const LEASE_MS = 600;

/** A connector that holds every batch until the test lets it go. */
class SlowConnector implements Connector {
  readonly name = "slow";
  readonly channel = "sms";
  readonly sent: string[] = [];
  private release: (() => void) | undefined;
  private readonly released = new Promise<void>((resolve) => {
    this.release = resolve;
  });
  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    this.sent.push(...messages.map((m) => m.id));
    await this.released;
    return messages.map((m) => ({ ok: true, upstreamId: `S-${m.id}` }));
  }
  letGo(): void {
    this.release?.();
  }
  onReports(): void {}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

(postgresAvailable ? describe : describe.skip)("dispatch leases [postgres]", () => {
  // API only: nothing dispatches until the test starts its own dispatcher.
  const gateway = useTestGateway("postgres", { roles: ["api"] });

  async function queued(count: number): Promise<string[]> {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 100 } });
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const sent = await call(t, "POST", "/api/v2/sms/send", {
        headers: { authorization: `Bearer ${account.apiKey}` },
        json: { sender_id: "SWBRD", recipient: `96${10_006_000 + i}`, message: `lease ${i}`, route: "transactional" },
      });
      expect(sent.status).toBe(200);
      ids.push(sent.body.data.message_id);
    }
    return ids;
  }

  function dispatcher(connector: Connector): Dispatcher {
    const t = gateway();
    return new Dispatcher(
      {
        store: t.db.store,
        clock: t.clock,
        logger: createLogger({ logLevel: "silent" }),
        metrics: createMetrics({ defaultMetrics: false }),
      },
      new Router([connector]),
      { batchSize: 100, leaseMs: LEASE_MS, idleMs: 50, maxAttempts: 3 },
    );
  }

  it("renews the lease of a batch its connector holds past the lease, so housekeeping leaves it alone", async () => {
    const t = gateway();
    const ids = await queued(5);
    const connector = new SlowConnector();
    const worker = dispatcher(connector);
    worker.start();
    try {
      while (connector.sent.length < ids.length) await sleep(10);
      // Three leases long: without renewal housekeeping would take every message back at the first look.
      for (let look = 0; look < 6; look++) {
        await sleep(LEASE_MS / 2);
        expect(await requeueExpiredLeases(t.db.store, t.clock.now().getTime())).toBe(0);
        expect(await claimDueMessages(t.db.store, t.clock.now().getTime(), 100, LEASE_MS)).toEqual([]);
      }
      connector.letGo();
      const deadline = Date.now() + 10_000;
      let statuses: string[] = [];
      while (Date.now() < deadline) {
        const rows = await t.db.store.db.selectFrom("messages").select("status").where("id", "in", ids).execute();
        statuses = rows.map((row) => row.status);
        if (statuses.every((status) => status === "submitted")) break;
        await sleep(20);
      }
      expect(statuses).toEqual(ids.map(() => "submitted"));
      expect([...connector.sent].sort()).toEqual([...ids].sort());
    } finally {
      connector.letGo();
      await worker.stop();
    }
  });

  it("lets the lease of a batch whose dispatcher stopped beating expire, and only that one", async () => {
    const t = gateway();
    const ids = await queued(3);
    // A worker that claimed and then died: nothing renews its lease.
    const claimed = await claimDueMessages(t.db.store, t.clock.now().getTime(), 100, LEASE_MS);
    expect(claimed.map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(await requeueExpiredLeases(t.db.store, t.clock.now().getTime())).toBe(0);
    await sleep(LEASE_MS + 100);
    expect(await requeueExpiredLeases(t.db.store, t.clock.now().getTime())).toBe(3);
  });
});
