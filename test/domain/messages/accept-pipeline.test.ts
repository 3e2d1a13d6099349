// The Acceptor writes the next group of sends while the previous group's commit is still being made
// durable (SQLite: the group commit fsyncs the WAL off the thread), and on PostgreSQL keeps one
// group at a time. Every send is still answered only after its own commit.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { systemClock } from "../../../src/base/core/clock.js";
import type { Store } from "../../../src/base/store/store.js";
import { walletBalance } from "../../../src/domain/accounts/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { Acceptor, type SendOrder } from "../../../src/domain/messages/index.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

const DURABLE_AFTER_MS = 150;

/** The store, with each transaction's promise settled DURABLE_AFTER_MS after its commit (a slow disk), counting how many overlap. */
function slowDisk(store: Store) {
  const seen = { inFlight: 0, most: 0, started: 0 };
  const slow: Store = Object.create(store);
  slow.transaction = async (fn) => {
    seen.started++;
    seen.inFlight++;
    seen.most = Math.max(seen.most, seen.inFlight);
    try {
      const value = await store.transaction(fn);
      await new Promise((resolve) => setTimeout(resolve, DURABLE_AFTER_MS));
      return value;
    } finally {
      seen.inFlight--;
    }
  };
  return { slow, seen };
}

function order(accountId: number, recipient: string): SendOrder {
  return {
    accountId,
    timeZone: "Asia/Kolkata",
    channel: "sms",
    wallet: "sms",
    drafts: [
      {
        recipient,
        sender: "SWBRD",
        body: "hi",
        encoding: "gsm7",
        segments: 1,
        flash: false,
        route: "transactional",
        lane: 0,
        credits: 1000,
        dueAt: Date.now(),
      },
    ],
  };
}

describeEachEngine("accept pipeline", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("starts the next group before the previous one is durable on SQLite, one at a time on PostgreSQL", async () => {
    const account = await createAccountWithKey(
      { store: db.store, clock: systemClock, actor: cliActor() },
      { username: "pipeline", password: "pipeline-password", credits: { sms: 10 } },
    );
    const { slow, seen } = slowDisk(db.store);
    const acceptor = new Acceptor(slow, systemClock);
    // The first send takes the broadcast ids' first block (a transaction of its own).
    await acceptor.accept(order(account.id, "9876500000"));
    seen.started = 0;
    seen.most = 0;
    const answered: string[] = [];
    const first = acceptor.accept(order(account.id, "9876500001")).then(() => answered.push("first"));
    // Its own group: sent once the first group's transaction has begun.
    await vi.waitFor(() => expect(seen.started).toBe(1), { interval: 1 });
    const second = acceptor.accept(order(account.id, "9876500002")).then(() => answered.push("second"));
    await Promise.all([first, second]);

    expect(seen.started).toBe(2);
    expect(seen.most).toBe(engine === "sqlite" ? 2 : 1);
    expect(answered).toEqual(["first", "second"]);
    const stored = await db.store.db
      .selectFrom("messages")
      .select("recipient")
      .where("account_id", "=", account.id)
      .orderBy("recipient")
      .execute();
    expect(stored.map((row) => row.recipient)).toEqual(["9876500000", "9876500001", "9876500002"]);
    expect(Number(await walletBalance(db.store.db, account.id, "sms"))).toBe(7000);
  });
});
