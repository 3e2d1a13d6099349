// Transactions that keep rows in a bounded table at the same time, as processes of a scale-out
// do: the first holds its transaction open, its drops not yet committed, while the others keep
// theirs. On PostgreSQL it holds until each other has finished its keep or waits for a lock (one
// the first holds), so that every keep has read the table before the first commits, whatever the
// timing; on SQLite the transactions take the one writer in turn.
import { sql } from "kysely";
import type { Db, Store } from "../../src/base/store/store.js";
import { until } from "../domain/webhooks/receiver.js";

/**
 * What each of the `count` transactions' `keep` answered (the first's first), and how many of the
 * others waited for a lock. `thenFirst`: what the first does after that, before it commits (as
 * a report ingester forgets the kept reports it applied after keeping new ones).
 */
export async function keepsAtOnce<T>(
  store: Store,
  count: number,
  keep: (trx: Db, index: number) => Promise<T>,
  thenFirst?: (trx: Db) => Promise<unknown>,
): Promise<{ answers: T[]; waited: number }> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding!: () => void;
  const held = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const first = store.transaction(async (trx) => {
    const answer = await keep(trx, 0);
    holding();
    await gate;
    await thenFirst?.(trx);
    return answer;
  });
  await Promise.race([held, first]);
  const backends: number[] = [];
  let finished = 0;
  const others = Array.from({ length: count - 1 }, (_, i) => {
    const other = store.transaction(async (trx) => {
      if (store.engine === "postgres") {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        backends.push(rows[0]!.pid);
      }
      return keep(trx, i + 1);
    });
    // Committed or failed: no longer waiting (a failure is answered below, with the others).
    void other.then(
      () => finished++,
      () => finished++,
    );
    return other;
  });
  let waited = 0;
  if (store.engine === "postgres") {
    await until(async () => {
      // Read first: one that finishes meanwhile is then in neither count, never in both.
      const done = finished;
      if (backends.length < count - 1) return false;
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity
         where pid = any(${backends}::int[]) and wait_event_type = 'Lock'`.execute(store.db);
      waited = rows[0]!.n;
      return waited + done >= count - 1;
    });
  }
  release();
  return { answers: await Promise.all([first, ...others]), waited };
}
