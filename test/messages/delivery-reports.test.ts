// Delivery reports against the real store: duplicates and late contradictions change nothing,
// and a report that overtakes the record of its submit is applied once the submit is recorded.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAccountWithKey } from "../../src/admin/index.js";
import { createLogger } from "../../src/app/gateway.js";
import { systemClock } from "../../src/core/clock.js";
import { ReportIngester } from "../../src/dispatch/index.js";
import { applyDeliveryReports, claimDueMessages, markSubmitted } from "../../src/messages/index.js";
import { createMetrics } from "../../src/runtime/metrics.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../helpers/engines.js";
import { acceptSms } from "../helpers/message-row.js";

describeEachEngine("delivery reports", (engine) => {
  let db: TestDatabase;
  let accountId: number;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    const account = await createAccountWithKey(
      { store: db.store, clock: systemClock },
      {
        username: "dlr",
        password: "dlr-password",
        credits: { sms: 100 },
      },
    );
    accountId = account.id;
  });
  afterAll(async () => db?.drop());

  const acceptOne = (recipient: string) => acceptSms(db.store, accountId, { recipient });

  async function statusOf(id: string) {
    return await db.store.db
      .selectFrom("messages")
      .select(["status", "done_at"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
  }

  it("applies delivered once and ignores a later failed or a duplicate", async () => {
    const id = await acceptOne("9811111111");
    const [claimed] = await claimDueMessages(db.store, db.store.db, Date.now(), 10);
    expect(claimed?.id).toBe(id);
    await db.store.transaction((trx) =>
      markSubmitted(db.store, trx, [{ id, connector: "test", upstreamId: "U1", at: Date.now(), attempts: 1 }]),
    );

    const first = await db.store.transaction((trx) =>
      applyDeliveryReports(db.store, trx, [{ connector: "test", upstreamId: "U1", status: "delivered", at: 1000 }]),
    );
    expect(first.map((r) => r.id)).toEqual([id]);
    const again = await db.store.transaction((trx) =>
      applyDeliveryReports(db.store, trx, [
        { connector: "test", upstreamId: "U1", status: "failed", at: 2000, code: "LATE" },
        { connector: "other", upstreamId: "U1", status: "failed", at: 2000 },
      ]),
    );
    expect(again).toEqual([]);
    expect(await statusOf(id)).toEqual({ status: "delivered", done_at: 1000 });
  });

  it("holds a report that arrives before its submit is recorded, then applies it", async () => {
    const id = await acceptOne("9822222222");
    const ingester = new ReportIngester({
      store: db.store,
      clock: systemClock,
      logger: createLogger({ logLevel: "silent" }),
      metrics: createMetrics({ defaultMetrics: false }),
    });
    ingester.start();
    ingester.push([{ connector: "test", upstreamId: "EARLY", status: "delivered", at: 5000 }]);
    await new Promise((r) => setTimeout(r, 100));
    expect((await statusOf(id)).status).toBe("queued");

    await claimDueMessages(db.store, db.store.db, Date.now(), 10);
    await db.store.transaction((trx) =>
      markSubmitted(db.store, trx, [{ id, connector: "test", upstreamId: "EARLY", at: Date.now(), attempts: 1 }]),
    );
    const deadline = Date.now() + 5000;
    while ((await statusOf(id)).status !== "delivered" && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    await ingester.stop();
    expect(await statusOf(id)).toEqual({ status: "delivered", done_at: 5000 });
  });
  it("keeps a report that matched nothing when looking it up fails (the database away), and applies it later", async () => {
    const id = await acceptOne("9876500044");
    // Only the ingester's own look-up of unmatched reports goes through this handle.
    let away = true;
    let failedLookups = 0;
    const failing = db.store.db.withPlugin({
      transformQuery(args) {
        if (away && args.node.kind === "SelectQueryNode") {
          failedLookups++;
          throw new Error("the database is away");
        }
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const ingester = new ReportIngester({
      store: { ...db.store, db: failing },
      clock: systemClock,
      logger: createLogger({ logLevel: "silent" }),
      metrics: createMetrics({ defaultMetrics: false }),
    });
    ingester.start();
    try {
      ingester.push([{ connector: "test", upstreamId: "AWAY-1", status: "delivered", at: 6000 }]);
      const until = Date.now() + 5000;
      while (failedLookups === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(failedLookups).toBeGreaterThan(0);
      away = false;
      await claimDueMessages(db.store, db.store.db, Date.now(), 10);
      await db.store.transaction((trx) =>
        markSubmitted(db.store, trx, [{ id, connector: "test", upstreamId: "AWAY-1", at: Date.now(), attempts: 1 }]),
      );
      const deadline = Date.now() + 5000;
      while ((await statusOf(id)).status !== "delivered" && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(await statusOf(id)).toEqual({ status: "delivered", done_at: 6000 });
    } finally {
      await ingester.stop();
    }
  });

  it("counts the retry window from the database's first answer: a report that came while it was away longer than the window is applied once its submit is recorded", async () => {
    const id = await acceptOne("9876500055");
    // Every transaction of the ingester fails while `away` (the database unreachable).
    let away = true;
    let failedApplies = 0;
    const ingester = new ReportIngester({
      store: {
        ...db.store,
        transaction: (fn) => {
          if (!away) return db.store.transaction(fn);
          failedApplies++;
          return Promise.reject(new Error("the database is away"));
        },
      },
      clock: systemClock,
      logger: createLogger({ logLevel: "silent" }),
      metrics: createMetrics({ defaultMetrics: false }),
      retryUnmatchedMs: 400,
    });
    ingester.start();
    try {
      ingester.push([{ connector: "test", upstreamId: "AWAY-2", status: "delivered", at: 7000 }]);
      // Away for twice the window, then back; the submit's record comes 250 ms after that
      // (a dispatcher's recordAgain), within the window counted from the first answer.
      await new Promise((r) => setTimeout(r, 800));
      expect(failedApplies).toBeGreaterThan(1);
      away = false;
      await new Promise((r) => setTimeout(r, 250));
      expect((await statusOf(id)).status).toBe("queued");
      await claimDueMessages(db.store, db.store.db, Date.now(), 10);
      await db.store.transaction((trx) =>
        markSubmitted(db.store, trx, [{ id, connector: "test", upstreamId: "AWAY-2", at: Date.now(), attempts: 1 }]),
      );
      const deadline = Date.now() + 5000;
      while ((await statusOf(id)).status !== "delivered" && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(await statusOf(id)).toEqual({ status: "delivered", done_at: 7000 });
    } finally {
      await ingester.stop();
    }
  });

  it("drops a report that still matches nothing once the window has passed since the database's first answer", async () => {
    const id = await acceptOne("9876500066");
    const ingester = new ReportIngester({
      store: db.store,
      clock: systemClock,
      logger: createLogger({ logLevel: "silent" }),
      metrics: createMetrics({ defaultMetrics: false }),
      retryUnmatchedMs: 200,
    });
    ingester.start();
    try {
      ingester.push([{ connector: "test", upstreamId: "TOO-LATE", status: "delivered", at: 9000 }]);
      await new Promise((r) => setTimeout(r, 700));
      // Recorded after the window: the report was given up and is not applied.
      await claimDueMessages(db.store, db.store.db, Date.now(), 10);
      await db.store.transaction((trx) =>
        markSubmitted(db.store, trx, [{ id, connector: "test", upstreamId: "TOO-LATE", at: Date.now(), attempts: 1 }]),
      );
      await new Promise((r) => setTimeout(r, 600));
      expect((await statusOf(id)).status).toBe("submitted");
    } finally {
      await ingester.stop();
    }
  });
});
