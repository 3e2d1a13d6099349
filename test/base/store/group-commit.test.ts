// SQLite's group commit with the WAL fsynced off the thread: no caller hears of its commit before
// an fsync that started after that commit has ended, fsyncs overlap (two at most), a later fsync
// settles the groups committed before it started, and a failed fsync fails the groups it covered.
import Database from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import type { CommitShare } from "../../../src/base/store/contract.js";
import type { Db } from "../../../src/base/store/schema.js";
import { groupCommitTransactions } from "../../../src/base/store/sqlite-group-commit.js";

interface Sync {
  /** Commits made before this fsync started (the groups it covers). */
  rowsAtStart: number;
  finish: (error?: Error) => void;
}

const dbs: Db[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.destroy();
});

function setUp() {
  const raw = new Database(":memory:");
  raw.exec("create table t (n integer)");
  const db = new Kysely<never>({ dialect: new SqliteDialect({ database: raw }) }) as unknown as Db;
  dbs.push(db);
  const syncs: Sync[] = [];
  const rows = () => (raw.prepare("select count(*) as n from t").get() as { n: number }).n;
  const { transaction, shareUntilCommit } = groupCommitTransactions(db, {
    syncWal: () =>
      new Promise<void>((resolve, reject) => {
        syncs.push({ rowsAtStart: rows(), finish: (error) => (error ? reject(error) : resolve()) });
      }),
  });
  const insert = (n: number) => transaction((trx) => sql`insert into t (n) values (${n})`.execute(trx).then(() => n));
  return { raw, syncs, insert, rows, transaction, shareUntilCommit };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 2));
  expect(check()).toBe(true);
};

describe("group commit with the WAL fsynced off the thread", () => {
  it("answers a group only after an fsync started after its commit, overlapping two fsyncs at most", async () => {
    const { syncs, insert } = setUp();
    const settled: number[] = [];
    const track = (p: Promise<number>) => p.then((n) => settled.push(n));
    void track(insert(1));
    await until(() => syncs.length === 1);
    expect(syncs[0]!.rowsAtStart).toBe(1);
    // A second group commits while the first fsync runs: its own fsync starts at once.
    void track(insert(2));
    await until(() => syncs.length === 2);
    expect(syncs[1]!.rowsAtStart).toBe(2);
    // A third waits: two are in flight.
    void track(insert(3));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(syncs).toHaveLength(2);
    expect(settled).toEqual([]);
    // The second fsync ends first: it covers the first two groups, not the third.
    syncs[1]!.finish();
    await until(() => settled.length === 2);
    expect(settled).toEqual([1, 2]);
    await until(() => syncs.length === 3);
    expect(syncs[2]!.rowsAtStart).toBe(3);
    // The first fsync's end changes nothing; the third's answers the third group.
    syncs[0]!.finish();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toEqual([1, 2]);
    syncs[2]!.finish();
    await until(() => settled.length === 3);
  });

  it("fails the groups a failed fsync covered, and only those", async () => {
    const { syncs, insert } = setUp();
    const first = insert(1);
    await until(() => syncs.length === 1);
    const second = insert(2);
    await until(() => syncs.length === 2);
    syncs[0]!.finish(new Error("EIO"));
    await expect(first).rejects.toThrow("EIO");
    syncs[1]!.finish();
    await expect(second).resolves.toBe(2);
  });

  it("merges the shares of a group's transactions and writes them once before the COMMIT, without a failed one's", async () => {
    const { raw, syncs, transaction, shareUntilCommit } = setUp();
    raw.exec("create table sums (n integer)");
    const writes: number[] = [];
    class Sum implements CommitShare {
      total = 0;
      merge(other: CommitShare) {
        this.total += (other as Sum).total;
      }
      async write(trx: Db) {
        writes.push(this.total);
        await sql`insert into sums (n) values (${this.total})`.execute(trx);
      }
    }
    const add = (n: number, fail = false) =>
      transaction(async (trx) => {
        const share = shareUntilCommit(trx, "sum", () => new Sum());
        if (!share) throw new Error("no share inside a transaction of the group");
        share.total += n;
        if (fail) throw new Error("refused");
        return n;
      });
    // Outside a transaction of the group there is none: the caller writes at once.
    expect(shareUntilCommit(raw as unknown as Db, "sum", () => new Sum())).toBeUndefined();
    const results = [add(1), add(10, true), add(100)];
    await until(() => syncs.length === 1);
    syncs[0]!.finish();
    await expect(results[0]).resolves.toBe(1);
    await expect(results[1]).rejects.toThrow("refused");
    await expect(results[2]).resolves.toBe(100);
    expect(writes).toEqual([101]);
    expect(raw.prepare("select n from sums").pluck().all()).toEqual([101]);
  });
});
