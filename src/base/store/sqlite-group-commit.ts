// Group commit for SQLite: every write transaction requested in the same tick runs inside one
// BEGIN IMMEDIATE … COMMIT, each in a savepoint of its own. A failing transaction rolls back to
// its savepoint and fails alone; each caller's promise settles only after the shared COMMIT is
// durable, so nothing is reported durable before it is. One fsync then covers the sends
// accepted, the submits recorded and the delivery reports applied in that tick.
//
// With `syncWal` (synchronous=FULL on a connection that serves a busy thread), the COMMIT runs
// with synchronous=NORMAL, so it only writes the WAL, and the WAL is fsynced on libuv's thread
// pool; the callers of a group settle once an fsync that started after their COMMIT has
// finished (up to two overlap). The thread meanwhile runs the next group instead of waiting for the disk: the same
// durability as FULL (the committed frames are on disk before any caller hears of them), with
// the fsync of one group overlapping the work of the next. Other statements on the connection
// (autocommits outside a group) keep synchronous=FULL.
//
// Shares (shareUntilCommit): a transaction of the group may hand work that every writer of a
// tick repeats (the delivery rollups' counters) to a share of its own; once its savepoint is
// released the share is merged into the group's, which is written once before the COMMIT. A
// transaction that fails takes its share with it.
import { CompiledQuery } from "kysely";
import type { CommitShare } from "./contract.js";
import type { Db } from "./schema.js";

interface Job {
  fn: (trx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

const BEGIN = CompiledQuery.raw("begin immediate");
const COMMIT = CompiledQuery.raw("commit");
const ROLLBACK = CompiledQuery.raw("rollback");
const SAVEPOINT = CompiledQuery.raw("savepoint sb_job");
const RELEASE = CompiledQuery.raw("release sb_job");
const ROLLBACK_TO = CompiledQuery.raw("rollback to sb_job");
const NORMAL = CompiledQuery.raw("pragma synchronous = NORMAL");
const FULL = CompiledQuery.raw("pragma synchronous = FULL");
/** Overlapping fsyncs of the WAL at most (each holds one of libuv's four pool threads). */
const SYNCS_IN_FLIGHT = 2;

export interface GroupCommitOptions {
  /** Makes every WAL frame written so far durable (an fsync of the -wal file). */
  syncWal?: () => Promise<void>;
}

export function groupCommitTransactions(db: Db, options: GroupCommitOptions = {}) {
  let queue: Job[] = [];
  let flushing = false;
  const { syncWal } = options;
  /** The transaction running now (its connection) and its shares. */
  let running: { trx: Db; shares: Map<string, CommitShare> } | undefined;

  // Groups committed (synchronous=NORMAL) whose callers wait for an fsync of the WAL that
  // started after their COMMIT, in commit order. Up to SYNCS_IN_FLIGHT fsyncs overlap: a group
  // committed while one runs starts its own at once rather than waiting for it to end (on this
  // kind of disk two overlapping flushes take about as long as one). Whichever fsync ends
  // settles every group committed before it started.
  const awaiting: Array<{ seq: number; settle: (error?: unknown) => void }> = [];
  let committed = 0;
  let syncStartedUpTo = 0;
  let syncsInFlight = 0;
  const settleUpTo = (seq: number, error?: unknown) => {
    let n = 0;
    while (n < awaiting.length && awaiting[n]!.seq <= seq) n++;
    for (const waiter of awaiting.splice(0, n)) waiter.settle(error);
  };
  const sync = () => {
    if (!syncWal || syncsInFlight >= SYNCS_IN_FLIGHT || syncStartedUpTo === committed) return;
    syncsInFlight++;
    const upTo = committed;
    syncStartedUpTo = upTo;
    syncWal()
      .then(
        () => settleUpTo(upTo),
        (error: unknown) => settleUpTo(upTo, error),
      )
      .finally(() => {
        syncsInFlight--;
        sync();
      });
  };

  const settleAll = (jobs: Job[], settled: Settled[], failure?: unknown) => {
    jobs.forEach((job, index) => {
      const outcome = settled[index]!;
      if (failure !== undefined) job.reject(failure);
      else if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  };

  const flush = async () => {
    while (queue.length > 0) {
      const jobs = queue;
      queue = [];
      const settled: Settled[] = [];
      try {
        await db.connection().execute(async (conn) => {
          if (syncWal) await conn.executeQuery(NORMAL);
          try {
            await conn.executeQuery(BEGIN);
            const shares = new Map<string, CommitShare>();
            try {
              for (const job of jobs) {
                await conn.executeQuery(SAVEPOINT);
                running = { trx: conn, shares: new Map() };
                try {
                  const value = await job.fn(conn);
                  for (const [key, share] of running.shares) {
                    const group = shares.get(key);
                    if (group) group.merge(share);
                    else shares.set(key, share);
                  }
                  settled.push({ ok: true, value });
                  await conn.executeQuery(RELEASE);
                } catch (error) {
                  await conn.executeQuery(ROLLBACK_TO);
                  await conn.executeQuery(RELEASE);
                  settled.push({ ok: false, error });
                } finally {
                  running = undefined;
                }
              }
              for (const share of shares.values()) await share.write(conn);
              await conn.executeQuery(COMMIT);
            } catch (error) {
              await conn.executeQuery(ROLLBACK).catch(() => undefined);
              throw error;
            }
          } finally {
            if (syncWal) await conn.executeQuery(FULL);
          }
        });
      } catch (error) {
        // BEGIN or COMMIT failed (disk full, I/O error): nothing of this group is durable.
        for (const job of jobs) job.reject(error);
        continue;
      }
      if (syncWal) {
        committed++;
        awaiting.push({ seq: committed, settle: (error) => settleAll(jobs, settled, error) });
        sync();
      } else {
        settleAll(jobs, settled);
      }
      // better-sqlite3 is synchronous, so chains of awaited statements run as microtasks and
      // never let the event loop read a socket. Give I/O a turn between groups: without it a
      // 1.5 MB request body arrived 64 KB per busy round, 6 s behind a dispatching bulk job.
      await new Promise((resolve) => setImmediate(resolve));
    }
    flushing = false;
  };

  function shareUntilCommit<T extends CommitShare>(trx: Db, key: string, create: () => T): T | undefined {
    if (!running || running.trx !== trx) return undefined;
    let share = running.shares.get(key);
    if (!share) {
      share = create();
      running.shares.set(key, share);
    }
    return share as T;
  }

  function transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!flushing) {
        flushing = true;
        // Where the COMMIT itself fsyncs (no syncWal), one millisecond of patience: under load
        // the group grows and those fsyncs, each stopping this thread, get fewer. With syncWal
        // the fsyncs run beside the thread, at most SYNCS_IN_FLIGHT at once however many groups
        // commit, so the group starts at once (the Acceptor's commit wait fell 20-40 %).
        if (syncWal) setImmediate(() => void flush());
        else setTimeout(() => void flush(), 1);
      }
    });
  }

  return { transaction, shareUntilCommit };
}
