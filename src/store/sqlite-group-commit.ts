// Group commit for SQLite: every write transaction requested in the same tick runs inside one
// BEGIN IMMEDIATE … COMMIT, each in a savepoint of its own. A failing transaction rolls back to
// its savepoint and fails alone; each caller's promise settles only after the shared COMMIT, so
// nothing is reported durable before it is. One fsync then covers the sends accepted, the
// submits recorded and the delivery reports applied in that tick.
import { sql } from "kysely";
import type { Db } from "./schema.js";

interface Job {
  fn: (trx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

export function groupCommitTransactions(db: Db) {
  let queue: Job[] = [];
  let flushing = false;

  const flush = async () => {
    while (queue.length > 0) {
      const jobs = queue;
      queue = [];
      const settled: Settled[] = [];
      try {
        await db.connection().execute(async (conn) => {
          await sql`begin immediate`.execute(conn);
          try {
            for (const job of jobs) {
              await sql`savepoint sb_job`.execute(conn);
              try {
                settled.push({ ok: true, value: await job.fn(conn) });
                await sql`release sb_job`.execute(conn);
              } catch (error) {
                await sql`rollback to sb_job`.execute(conn);
                await sql`release sb_job`.execute(conn);
                settled.push({ ok: false, error });
              }
            }
            await sql`commit`.execute(conn);
          } catch (error) {
            await sql`rollback`.execute(conn).catch(() => undefined);
            throw error;
          }
        });
      } catch (error) {
        // BEGIN or COMMIT failed (disk full, I/O error): nothing of this group is durable.
        for (const job of jobs) job.reject(error);
        continue;
      }
      jobs.forEach((job, index) => {
        const outcome = settled[index]!;
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      });
      // better-sqlite3 is synchronous, so chains of awaited statements run as microtasks and
      // never let the event loop read a socket. Give I/O a turn between groups: without it a
      // 1.5 MB request body arrived 64 KB per busy round, 6 s behind a dispatching bulk job.
      await new Promise((resolve) => setImmediate(resolve));
    }
    flushing = false;
  };

  return function transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!flushing) {
        flushing = true;
        // One millisecond of patience: under load the group grows and commits (each an fsync)
        // get fewer; idle, a write waits 1 ms longer.
        setTimeout(() => void flush(), 1);
      }
    });
  };
}
