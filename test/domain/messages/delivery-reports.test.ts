// Delivery reports against the real store: duplicates and late contradictions change nothing,
// and a report that overtakes the record of its submit is applied once the submit is recorded.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { createLogger } from "../../../src/app/gateway.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { createMetrics } from "../../../src/base/runtime/metrics.js";
import { ReportIngester } from "../../../src/delivery/dispatch/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { applyDeliveryReports, claimDueMessages, markSubmitted } from "../../../src/domain/messages/index.js";
import { createTestDatabase, describeEnginesTogether, type TestDatabase } from "../../helpers/engines.js";
import { acceptSms } from "../../helpers/message-row.js";

describeEnginesTogether("delivery reports", (engine) => {
  let db: TestDatabase;
  let accountId: number;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    const account = await createAccountWithKey(
      { store: db.store, clock: systemClock, actor: cliActor() },
      {
        username: "dlr",
        password: "dlr-password",
        credits: { sms: 100 },
      },
    );
    accountId = account.id;
  });
  afterAll(async () => db?.drop());

  // Submits are recorded at this time, before the reports' (1000 and after).
  const SUBMITTED_AT = 500;
  const acceptOne = (recipient: string) => acceptSms(db.store, accountId, { recipient });

  async function statusOf(id: string) {
    return await db.store.db
      .selectFrom("messages")
      .select(["status", "done_at"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
  }

  const kept = async () =>
    (await db.store.db.selectFrom("early_reports").select(["connector", "upstream_id", "status"]).execute()).map(
      (row) => `${row.connector}/${row.upstream_id}/${row.status}`,
    );
  const until = async (check: () => Promise<boolean>, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!(await check()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return check();
  };

  it("applies delivered once and ignores a later failed or a duplicate", async () => {
    const id = await acceptOne("9811111111");
    const [claimed] = await claimDueMessages(db.store, db.store.db, Date.now(), 10);
    expect(claimed?.id).toBe(id);
    await db.store.transaction((trx) =>
      markSubmitted(db.store, trx, [{ id, connector: "test", upstreamId: "U1", at: SUBMITTED_AT, attempts: 1 }]),
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

  it("takes a carrier id and error text ending in half a surrogate pair (PostgreSQL's jsonb refuses its escape)", async () => {
    const id = await acceptOne("9833333333");
    await claimDueMessages(db.store, db.store.db, Date.now(), 10);
    const upstreamId = "U2\ud800";
    await db.store.transaction((trx) =>
      markSubmitted(db.store, trx, [
        { id, connector: "test", upstreamId, at: SUBMITTED_AT, attempts: 1, note: "n\udc00" },
      ]),
    );
    const reported = await db.store.transaction((trx) =>
      applyDeliveryReports(db.store, trx, [
        { connector: "test", upstreamId, status: "failed", at: 3000, code: "E\ud83d", message: "\\ud800 \udfff" },
      ]),
    );
    expect(reported.map((r) => r.id)).toEqual([id]);
    expect(await statusOf(id)).toEqual({ status: "failed", done_at: 3000 });
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
    // Looked at: no message carries its id yet, so it is kept for later.
    expect(await until(async () => (await kept()).includes("test/EARLY/delivered"))).toBe(true);
    expect((await statusOf(id)).status).toBe("queued");

    await claimDueMessages(db.store, db.store.db, Date.now(), 10);
    const submittedAt = Date.now();
    await db.store.transaction((trx) =>
      markSubmitted(db.store, trx, [{ id, connector: "test", upstreamId: "EARLY", at: submittedAt, attempts: 1 }]),
    );
    const deadline = Date.now() + 5000;
    while ((await statusOf(id)).status !== "delivered" && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    await ingester.stop();
    // Reported (at 5000) before its submit was recorded: the report's time is kept (the routing's
    // latency reads it); it is shown at the submit (shownEndAt, the timeline test).
    expect(await statusOf(id)).toEqual({ status: "delivered", done_at: 5000 });
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
        markSubmitted(db.store, trx, [{ id, connector: "test", upstreamId: "AWAY-2", at: SUBMITTED_AT, attempts: 1 }]),
      );
      const deadline = Date.now() + 5000;
      while ((await statusOf(id)).status !== "delivered" && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(await statusOf(id)).toEqual({ status: "delivered", done_at: 7000 });
    } finally {
      await ingester.stop();
    }
  });

  const ingesterOn = (
    store: typeof db.store,
    options: { retryUnmatchedMs?: number; sweepMs?: number; keepEarlyMs?: number } = {},
  ) =>
    new ReportIngester({
      store,
      clock: systemClock,
      logger: createLogger({ logLevel: "silent" }),
      metrics: createMetrics({ defaultMetrics: false }),
      ...options,
    });
  const ingester = (options: { retryUnmatchedMs?: number; sweepMs?: number; keepEarlyMs?: number } = {}) =>
    ingesterOn(db.store, options);

  it("stores a report that overtook its submit before it is acknowledged; another ingester applies it from the store once the submit is recorded", async () => {
    const id = await acceptOne("9876500066");
    // The process that took the report: the callback is answered once pushAndWait resolves.
    const first = ingester({ sweepMs: 60_000 });
    first.start();
    await first.pushAndWait([
      { connector: "test", upstreamId: "AHEAD-1", status: "failed", at: 9000, code: "UNDELIV" },
    ]);
    expect(await kept()).toEqual(["test/AHEAD-1/failed"]);
    // It dies (its memory with it); the submit is recorded afterwards.
    await first.stop();
    await claimDueMessages(db.store, db.store.db, Date.now(), 10);
    await db.store.transaction((trx) =>
      markSubmitted(db.store, trx, [{ id, connector: "test", upstreamId: "AHEAD-1", at: SUBMITTED_AT, attempts: 1 }]),
    );
    // No ingester runs: recording the submit alone does not apply the stored report.
    expect((await statusOf(id)).status).toBe("submitted");
    // Any other process's ingester finds it on its sweep.
    const second = ingester({ sweepMs: 100 });
    second.start();
    try {
      expect(await until(async () => (await statusOf(id)).status === "failed")).toBe(true);
      const row = await db.store.db
        .selectFrom("messages")
        .select(["done_at", "error_code", "error_message"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({
        done_at: 9000,
        error_code: "UNDELIV",
        error_message: "The carrier reported the message failed (UNDELIV).",
      });
      expect(await until(async () => (await kept()).length === 0)).toBe(true);
    } finally {
      await second.stop();
    }
  });

  it("applies a report past its minute in memory from the store once its submit is recorded", async () => {
    const id = await acceptOne("9876500077");
    const one = ingester({ retryUnmatchedMs: 200, sweepMs: 150 });
    one.start();
    try {
      one.push([{ connector: "test", upstreamId: "LATE-1", status: "delivered", at: 9100 }]);
      // Time passes beyond its 200 ms in memory (the case under test): only the store has it then.
      await new Promise((r) => setTimeout(r, 700));
      expect(await kept()).toEqual(["test/LATE-1/delivered"]);
      await claimDueMessages(db.store, db.store.db, Date.now(), 10);
      await db.store.transaction((trx) =>
        markSubmitted(db.store, trx, [{ id, connector: "test", upstreamId: "LATE-1", at: SUBMITTED_AT, attempts: 1 }]),
      );
      expect(await until(async () => (await statusOf(id)).status === "delivered")).toBe(true);
      expect(await until(async () => (await kept()).length === 0)).toBe(true);
    } finally {
      await one.stop();
    }
  });

  it("keeps no duplicate of a report its message already had, and drops a kept one no message carries after the keep window", async () => {
    const id = await acceptOne("9876500088");
    await claimDueMessages(db.store, db.store.db, Date.now(), 10);
    await db.store.transaction((trx) =>
      markSubmitted(db.store, trx, [{ id, connector: "test", upstreamId: "DUP-1", at: SUBMITTED_AT, attempts: 1 }]),
    );
    const one = ingester({ sweepMs: 100, keepEarlyMs: 1_500 });
    one.start();
    try {
      await one.pushAndWait([{ connector: "test", upstreamId: "DUP-1", status: "delivered", at: 9200 }]);
      await one.pushAndWait([
        { connector: "test", upstreamId: "DUP-1", status: "failed", at: 9300 },
        { connector: "test", upstreamId: "NOBODY-1", status: "delivered", at: 9300 },
      ]);
      expect(await statusOf(id)).toEqual({ status: "delivered", done_at: 9200 });
      expect(await kept()).toEqual(["test/NOBODY-1/delivered"]);
      expect(await until(async () => (await kept()).length === 0)).toBe(true);
    } finally {
      await one.stop();
    }
  });

  // PostgreSQL only: two transactions at once (SQLite has one writer, whose group commit runs them
  // one after the other).
  if (engine === "postgres") {
    it("applies a report whose submit's record committed between its UPDATE and the look-up that followed it", async () => {
      const id = await acceptOne("9876500099");
      await claimDueMessages(db.store, db.store.db, Date.now(), 10);
      // The record, open in a transaction of its own until the report's UPDATE has run.
      let letRecordCommit!: () => void;
      const recordMayCommit = new Promise<void>((resolve) => {
        letRecordCommit = resolve;
      });
      const record = db.store.transaction(async (trx) => {
        await markSubmitted(db.store, trx, [
          { id, connector: "test", upstreamId: "RACE-1", at: SUBMITTED_AT, attempts: 1 },
        ]);
        await recordMayCommit;
      });
      const between = ingesterOn({
        ...db.store,
        statement: (text) => {
          const statement = db.store.statement(text);
          if (!text.includes("returning") || !text.includes("v.reports")) return statement;
          return {
            ...statement,
            all: async (trx, params) => {
              const rows = await statement.all(trx, params);
              letRecordCommit();
              await record;
              return rows as never;
            },
          };
        },
      });
      between.start();
      try {
        await between.pushAndWait([{ connector: "test", upstreamId: "RACE-1", status: "delivered", at: 9400 }]);
        expect(await until(async () => (await statusOf(id)).status === "delivered")).toBe(true);
      } finally {
        await between.stop();
      }
    });
  }
});
