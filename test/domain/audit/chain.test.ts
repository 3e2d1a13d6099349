// The audit log's chain on both engines: appends numbered without gaps and each covering the
// previous hash; concurrent writers (PostgreSQL: separate connections) never fork it; a change
// that fails writes no entry; and `verifyAuditChain` names the first bad entry of a log with a
// row edited, deleted (in the middle, at the start, at the end), swapped, or edited and re-hashed.
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { auditHash } from "../../../src/base/store/audit-chain.js";
import { openStore, type Store } from "../../../src/base/store/store.js";
import { type Actor, recordChange, verifyAuditChain } from "../../../src/domain/audit/index.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

const actor: Actor = {
  accountId: 1,
  username: "ops",
  channel: "operator_api",
  credential: "key:1",
  address: "203.0.113.9",
};
const clock = new ManualClock(new Date("2026-11-29T10:00:00Z"));

async function append(store: Store, n: number, action = "credits.topup") {
  for (let i = 0; i < n; i++) {
    await store.transaction((trx) =>
      recordChange(
        trx,
        { clock, actor },
        {
          action,
          target: `wallet sms of acme (${i})`,
          accountId: 2,
          before: { balance: i },
          after: { balance: i + 1 },
        },
      ),
    );
  }
}

/** Drops the append-only triggers, as someone with the database's own credentials can. */
async function dropGuards(db: TestDatabase) {
  const trx = db.store.db;
  if (db.engine === "sqlite") {
    await sql`drop trigger audit_log_no_update`.execute(trx);
    await sql`drop trigger audit_log_no_delete`.execute(trx);
  } else {
    await sql`drop trigger audit_log_no_change on audit_log`.execute(trx);
  }
}

describeEachEngine("the audit log's chain", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => db.drop());

  it("appends entries numbered from 1, each covering the previous hash, and verifies them", async () => {
    await append(db.store, 5);
    const rows = await db.store.db.selectFrom("audit_log").selectAll().orderBy("seq").execute();
    expect(rows.map((row) => Number(row.seq))).toEqual([1, 2, 3, 4, 5]);
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toBe(rows[i - 1]!.hash);
    expect(rows[0]!.before).toBe('{"balance":0}');
    expect(rows[0]).toMatchObject({
      actor: "ops",
      channel: "operator_api",
      credential: "key:1",
      address: "203.0.113.9",
    });
    const report = await verifyAuditChain(db.store.db);
    expect(report).toEqual({ entries: 5, head: { seq: 5, hash: rows[4]!.hash } });
  });

  it("refuses an UPDATE or DELETE of an entry (append-only)", async () => {
    await expect(
      db.store.db.updateTable("audit_log").set({ target: "x" }).where("seq", "=", 1).execute(),
    ).rejects.toThrow(/append-only/);
    await expect(db.store.db.deleteFrom("audit_log").where("seq", "=", 1).execute()).rejects.toThrow(/append-only/);
  });

  it("writes no entry when the change's transaction fails", async () => {
    const before = await verifyAuditChain(db.store.db);
    await expect(
      db.store.transaction(async (trx) => {
        await recordChange(trx, { clock, actor }, { action: "key.create", target: "key 9", accountId: 2, after: {} });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await verifyAuditChain(db.store.db)).toEqual(before);
  });

  it("keeps one chain under concurrent writers", async () => {
    const others = engine === "postgres" ? await Promise.all([0, 1, 2].map(() => reopen(db))) : [db.store];
    try {
      await Promise.all(
        others.flatMap((store) => [append(store, 10, "route.save"), append(store, 10, "carrier.save")]),
      );
    } finally {
      if (engine === "postgres") await Promise.all(others.map((store) => store.close()));
    }
    const report = await verifyAuditChain(db.store.db);
    expect(report.broken).toBeUndefined();
    expect(report.entries).toBe(5 + others.length * 20);
  });

  it("names the first entry edited, deleted (start, middle, end), swapped, or edited and re-hashed", async () => {
    await dropGuards(db);
    const total = (await verifyAuditChain(db.store.db)).entries;
    const log = () => db.store.db.selectFrom("audit_log").selectAll().orderBy("seq").execute();
    const original = await log();
    const restore = async () => {
      await db.store.db.deleteFrom("audit_log").execute();
      for (const row of original) await db.store.db.insertInto("audit_log").values(row).execute();
      expect((await verifyAuditChain(db.store.db)).broken).toBeUndefined();
    };

    // Edited: what it became changed, the hash left as it was.
    await db.store.db.updateTable("audit_log").set({ after: '{"balance":1000}' }).where("seq", "=", 3).execute();
    expect((await verifyAuditChain(db.store.db)).broken).toEqual({ seq: 3, reason: expect.stringMatching(/^edited/) });
    await restore();

    // Deleted in the middle, at the start and at the end.
    await db.store.db.deleteFrom("audit_log").where("seq", "=", 4).execute();
    expect((await verifyAuditChain(db.store.db)).broken).toEqual({ seq: 4, reason: "entry 4 is missing (deleted)" });
    await restore();
    await db.store.db.deleteFrom("audit_log").where("seq", "=", 1).execute();
    expect((await verifyAuditChain(db.store.db)).broken?.seq).toBe(1);
    await restore();
    await db.store.db.deleteFrom("audit_log").where("seq", "=", total).execute();
    expect((await verifyAuditChain(db.store.db)).broken).toEqual({
      seq: total,
      reason: expect.stringMatching(/deleted from the end/),
    });
    await restore();

    // Swapped: entries 2 and 3 trade places (their numbers exchanged).
    await db.store.db.updateTable("audit_log").set({ seq: -2 }).where("seq", "=", 2).execute();
    await db.store.db.updateTable("audit_log").set({ seq: 2 }).where("seq", "=", 3).execute();
    await db.store.db.updateTable("audit_log").set({ seq: 3 }).where("seq", "=", -2).execute();
    expect((await verifyAuditChain(db.store.db)).broken).toEqual({
      seq: 2,
      reason: expect.stringMatching(/^does not follow entry 1/),
    });
    await restore();

    // Edited and re-hashed: the next entry no longer follows it.
    const third = original[2]!;
    const forged = { ...third, after: '{"balance":1000}' };
    await db.store.db
      .updateTable("audit_log")
      .set({ after: forged.after, hash: auditHash(forged) })
      .where("seq", "=", 3)
      .execute();
    expect((await verifyAuditChain(db.store.db)).broken?.seq).toBe(4);
    await restore();
  });
});

async function reopen(db: TestDatabase): Promise<Store> {
  return openStore(db.target, db.schema ? { pgSchema: db.schema } : {});
}
