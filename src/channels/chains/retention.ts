// MESSAGE_RETENTION_DAYS for fallback chains: a chain started before the cutoff goes with its
// steps (and so their timers) once it is completed, as its messages go once their life is over.
// A chain still running past the cutoff whose messages retention already removed can never be
// decided (its waiting step watches a message that is gone), so it goes too. Small batches, each
// its own transaction, the oldest first (send_chains_by_completion).
import type { Db, Store } from "../../base/store/store.js";
import { messageStatuses } from "../../domain/messages/index.js";

/** Removes up to `batch` chains started before `cutoff` that are done with; answers how many went. */
export async function pruneChains(store: Store, cutoff: number, batch: number): Promise<number> {
  return store.transaction(async (trx) => {
    const completed = await trx
      .selectFrom("send_chains")
      .select("id")
      .where("status", "=", "completed")
      .where("created_at", "<", cutoff)
      .orderBy("created_at")
      .limit(batch)
      .execute();
    const stranded = completed.length < batch ? await strandedChains(trx, cutoff, batch - completed.length) : [];
    const ids = [...completed, ...stranded].map((row) => row.id);
    if (ids.length === 0) return 0;
    await trx.deleteFrom("chain_steps").where("chain_id", "in", ids).execute();
    await trx.deleteFrom("send_chains").where("id", "in", ids).execute();
    return ids.length;
  });
}

/**
 * Running chains started before the cutoff none of whose messages is left (the oldest `limit`
 * running ones are looked at: a chain runs past the retention period only when it is stranded).
 */
async function strandedChains(trx: Db, cutoff: number, limit: number): Promise<Array<{ id: string }>> {
  const running = await trx
    .selectFrom("send_chains")
    .select("id")
    .where("status", "=", "running")
    .where("created_at", "<", cutoff)
    .orderBy("created_at")
    .limit(limit)
    .execute();
  if (running.length === 0) return [];
  const sent = await trx
    .selectFrom("chain_steps")
    .select(["chain_id", "message_id"])
    .where(
      "chain_id",
      "in",
      running.map((row) => row.id),
    )
    .where("message_id", "is not", null)
    .execute();
  const present = await messageStatuses(
    trx,
    sent.map((step) => step.message_id!),
  );
  const watched = new Set(sent.map((step) => step.chain_id));
  const alive = new Set(sent.filter((step) => present.has(step.message_id!)).map((step) => step.chain_id));
  return running.filter((row) => watched.has(row.id) && !alive.has(row.id));
}
