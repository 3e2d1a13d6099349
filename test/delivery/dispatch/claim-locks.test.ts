// Dispatch claims on PostgreSQL: a claimed batch stays locked to its dispatcher's transaction
// however long its connector takes, so neither another dispatcher nor housekeeping hands its
// messages to a second submit; a dispatcher whose transaction ends without a commit (its
// process died, its connection dropped) leaves its messages queued and at once claimable.
// SQLite's one dispatcher claims with a plain read, so the suite runs on PostgreSQL.
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { describe, expect, it, vi } from "vitest";
import type { MessageRow } from "../../../src/base/store/schema.js";
import { openStore, type Store } from "../../../src/base/store/store.js";
import type { Connector, Dispatcher, SubmitResult } from "../../../src/delivery/dispatch/index.js";
import { claimDueMessages, requeueExpiredLeases } from "../../../src/domain/messages/index.js";
import { postgresAvailable } from "../../helpers/engines.js";
import { buildAccount, call, testDispatcher, useTestGateway } from "../../helpers/gateway.js";

/** Longer than any lease the claims once wrote (15 s) need not be waited for: the test looks several times. */
const HELD_MS = 1_500;

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

/** `store`, counting the dispatch claims it answered (a test's mark that a dispatcher looked again). */
function countingClaims(store: Store): { store: Store; claims: () => number } {
  let claims = 0;
  const counted = Object.create(store) as Store;
  counted.statement = ((text: string) => {
    const statement = store.statement(text);
    if (!text.includes("skip locked")) return statement;
    return {
      ...statement,
      all: ((trx, params) => statement.all(trx, params).finally(() => claims++)) as typeof statement.all,
    };
  }) as Store["statement"];
  return { store: counted, claims: () => claims };
}

(postgresAvailable ? describe : describe.skip)("dispatch claims [postgres]", () => {
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

  /** The statuses of `ids` once all are submitted, or as they are after 10 s. */
  async function statusesOnceSubmitted(ids: string[]): Promise<string[]> {
    const t = gateway();
    const deadline = Date.now() + 10_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      const rows = await t.db.store.db.selectFrom("messages").select("status").where("id", "in", ids).execute();
      statuses = rows.map((row) => row.status);
      if (statuses.every((status) => status === "submitted")) break;
      await sleep(20);
    }
    return statuses;
  }

  /** A dispatcher of `connector` on the gateway's store, or on `store` (another role's sessions). */
  function dispatcher(connector: Connector, store?: Store): Dispatcher {
    return testDispatcher(gateway(), connector, {}, store ? { store } : {});
  }

  it("keeps a batch its connector holds from every other claim, then records it once", async () => {
    const t = gateway();
    const ids = await queued(5);
    const connector = new SlowConnector();
    const worker = dispatcher(connector);
    const other = new SlowConnector();
    const second = dispatcher(other);
    worker.start();
    try {
      while (connector.sent.length < ids.length) await sleep(10);
      second.start();
      for (let look = 0; look < 6; look++) {
        await sleep(HELD_MS / 6);
        expect(await requeueExpiredLeases(t.db.store, t.clock.now().getTime())).toBe(0);
        expect(await claimDueMessages(t.db.store, t.db.store.db, t.clock.now().getTime(), 100)).toEqual([]);
        // Nothing was written for the claim: clients see the messages queued, as before it.
        const rows = await t.db.store.db.selectFrom("messages").select("status").where("id", "in", ids).execute();
        expect(rows.map((row) => row.status)).toEqual(ids.map(() => "queued"));
      }
      expect(other.sent).toEqual([]);
      connector.letGo();
      expect(await statusesOnceSubmitted(ids)).toEqual(ids.map(() => "submitted"));
      expect([...connector.sent].sort()).toEqual([...ids].sort());
      expect(other.sent).toEqual([]);
    } finally {
      connector.letGo();
      other.letGo();
      await worker.stop();
      await second.stop();
    }
  });

  it("returns at once the batch of a claim whose transaction ends without a commit", async () => {
    const t = gateway();
    const ids = await queued(3);
    const now = () => t.clock.now().getTime();
    // A worker that claimed and then died: its transaction rolls back.
    const died = new Error("worker died");
    await expect(
      t.db.store.transaction(async (trx) => {
        const claimed = await claimDueMessages(t.db.store, trx, now(), 100);
        expect(claimed.map((m) => m.id).sort()).toEqual([...ids].sort());
        expect(claimed.every((m) => m.attempts === 1)).toBe(true);
        expect(await claimDueMessages(t.db.store, t.db.store.db, now(), 100)).toEqual([]);
        throw died;
      }),
    ).rejects.toBe(died);
    const again = await claimDueMessages(t.db.store, t.db.store.db, now(), 100);
    expect(again.map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(again.every((m) => m.attempts === 1)).toBe(true);
  });

  it("holds a batch through a server's idle_in_transaction_session_timeout shorter than the carrier's answer", async () => {
    const t = gateway();
    const ids = await queued(3);
    // Sessions of this role end any transaction idle for 300 ms, as some managed servers are set.
    const role = `sb_idle_${randomBytes(4).toString("hex")}`;
    await sql.raw(`create role ${role} login superuser`).execute(t.db.store.db);
    await sql.raw(`alter role ${role} set idle_in_transaction_session_timeout = '300ms'`).execute(t.db.store.db);
    const url = new URL(t.db.postgresUrl!);
    url.username = role;
    const store = await openStore({ engine: "postgres", url: url.toString() }, { pgSchema: t.db.schema });
    const connector = new SlowConnector();
    const { store: counted, claims } = countingClaims(store);
    const worker = dispatcher(connector, counted);
    worker.start();
    try {
      while (connector.sent.length < ids.length) await sleep(10);
      // The carrier answers after 1 s, past the sessions' 300 ms idle timeout (the case under test).
      await sleep(1_000);
      connector.letGo();
      expect(await statusesOnceSubmitted(ids)).toEqual(ids.map(() => "submitted"));
      // Once each: the batch's transaction was not ended under it, so nothing went out again
      // (two claims answered since: what the first of them took was submitted before the second).
      const before = claims();
      await vi.waitFor(() => expect(claims()).toBeGreaterThanOrEqual(before + 2), { timeout: 10_000, interval: 20 });
      const sent = connector.sent.filter((id) => ids.includes(id));
      expect(sent.sort()).toEqual([...ids].sort());
      expect(new Set(connector.sent).size).toBe(connector.sent.length);
    } finally {
      connector.letGo();
      await worker.stop();
      await store.close();
      await sql.raw(`drop role if exists ${role}`).execute(t.db.store.db);
    }
  });

  it("gives back what a worker of an earlier version left dispatching when its lease expired", async () => {
    const t = gateway();
    const ids = await queued(2);
    await t.db.store.db
      .updateTable("messages")
      .set({ status: "dispatching", lease_until: t.clock.now().getTime() - 1 })
      .where("id", "in", ids)
      .execute();
    expect(await requeueExpiredLeases(t.db.store, t.clock.now().getTime())).toBe(2);
    const again = await claimDueMessages(t.db.store, t.db.store.db, t.clock.now().getTime(), 100);
    expect(
      again
        .map((m) => m.id)
        .filter((id) => ids.includes(id))
        .sort(),
    ).toEqual([...ids].sort());
  });
});
