// MESSAGE_RETENTION_DAYS: messages accepted before the cutoff whose life is over are removed in
// small batches by housekeeping, with what only they need (their tracked short links and clicks,
// their parts, email events, captured mail and content: the owners' removals, handed in). The
// ledger keeps every entry (a debit names its broadcast, not the message row), so balances and
// their sums are unchanged.
import type { MessageStatus } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";

/** States no message leaves (WhatsApp's `sent` stays so when no read receipt comes). */
export const RETIRED_STATUSES: readonly MessageStatus[] = ["delivered", "failed", "cancelled", "read", "sent"];

/** Removes what other tables keep of these messages (and of their email contents), in their transaction. */
export type RetiredMessageData = (trx: Db, messageIds: string[], contentIds: number[]) => Promise<void>;

/**
 * Removes up to `batch` messages accepted before `cutoff` whose life is over, the oldest first,
 * with `dependents` in the same transaction. Answers how many went.
 */
export async function pruneRetiredMessages(
  store: Store,
  cutoff: number,
  batch: number,
  dependents: RetiredMessageData,
): Promise<number> {
  return store.transaction(async (trx) => {
    const rows = await trx
      .selectFrom("messages")
      .select(["id", "content_id"])
      .where("created_at", "<", cutoff)
      .where("status", "in", [...RETIRED_STATUSES])
      .orderBy("created_at")
      .limit(batch)
      .execute();
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => row.id);
    await trx.deleteFrom("messages").where("id", "in", ids).execute();
    // Their tracked short links and clicks (this folder's own tables): a retired message's link stops too.
    await trx.deleteFrom("link_clicks").where("message_id", "in", ids).execute();
    await trx.deleteFrom("short_links").where("message_id", "in", ids).execute();
    const contentIds = [...new Set(rows.flatMap((row) => (row.content_id === null ? [] : [row.content_id])))];
    await dependents(trx, ids, contentIds);
    return rows.length;
  });
}

/** Of these email contents, those no message names any more (their last recipient's message went). */
export async function unusedContents(trx: Db, contentIds: number[]): Promise<number[]> {
  if (contentIds.length === 0) return [];
  const used = await trx
    .selectFrom("messages")
    .select("content_id")
    .distinct()
    .where("content_id", "in", contentIds)
    .execute();
  const kept = new Set(used.map((row) => row.content_id));
  return contentIds.filter((id) => !kept.has(id));
}
