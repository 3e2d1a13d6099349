// The writes of the deliver_sm pump to smpp_outbox (claim, release, retry, delete), as plain
// operations that can cross to another thread. In `start` on SQLite the main thread, which holds
// the SMPP sockets, hands them to the worker thread (app/threads.ts), whose connection commits
// everything else: a second writer on the main thread would wait for SQLite's write lock with
// the event loop stopped (a BEGIN IMMEDIATE waits by sleeping), which held the server to a few
// hundred submits a second. Elsewhere they run on the process's own store.
import type { Store } from "../../base/store/store.js";

export type OutboxWrite =
  | { op: "claim"; ids: number[]; now: number; leaseUntil: number }
  | { op: "release"; id: number }
  | { op: "retry"; id: number; retryAt: number | null }
  | { op: "remove"; ids: number[] }
  /** Receipts written outside a message's transaction: the failed ones of parts whose message never came to be. */
  | { op: "insert"; rows: Array<{ account_id: number; message_id: string; payload: string; created_at: number }> };

export interface ClaimedRow {
  id: number;
  payload: string;
}

/** Runs one write; a claim answers the rows it took (free, or their lease run out), by id. */
export type OutboxWriter = (write: OutboxWrite) => Promise<ClaimedRow[] | undefined>;

/** The writes on `store`, each in one of its transactions (on SQLite, in the tick's group commit). */
export function localOutboxWriter(store: Store): OutboxWriter {
  return (write) =>
    store.transaction(async (trx) => {
      switch (write.op) {
        case "claim": {
          const rows = await trx
            .updateTable("smpp_outbox")
            .set((eb) => ({ lease_until: write.leaseUntil, attempts: eb("attempts", "+", 1) }))
            .where("id", "in", write.ids)
            .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", write.now)]))
            .returning(["id", "payload"])
            .execute();
          return rows.map((row) => ({ id: Number(row.id), payload: row.payload })).sort((a, b) => a.id - b.id);
        }
        case "release":
          await trx.updateTable("smpp_outbox").set({ lease_until: null }).where("id", "=", write.id).execute();
          return undefined;
        case "retry":
          await trx
            .updateTable("smpp_outbox")
            .set({ lease_until: null, retry_at: write.retryAt })
            .where("id", "=", write.id)
            .execute();
          return undefined;
        case "insert":
          await store.insertMany(
            trx,
            "smpp_outbox",
            write.rows.map((row) => ({
              ...row,
              kind: "receipt" as const,
              lease_until: null,
              attempts: 0,
              retry_at: null,
            })),
          );
          return undefined;
        case "remove":
          for (let at = 0; at < write.ids.length; at += 500) {
            await trx
              .deleteFrom("smpp_outbox")
              .where("id", "in", write.ids.slice(at, at + 500))
              .execute();
          }
          return undefined;
      }
    });
}
