// Finding an account's messages by any of the ids a client may hold: queue id, broadcast id
// (every message of the broadcast) or the carrier's id. Another account's ids find nothing.
import { BROADCAST_ID, isQueueId } from "../core/ids.js";
import type { MessageRow } from "../store/schema.js";
import type { Db } from "../store/store.js";

export type LookupKind = "queue" | "broadcast" | "upstream";

export async function findMessages(
  db: Db,
  accountId: number,
  id: string,
): Promise<{ kind: LookupKind; rows: MessageRow[] }> {
  // No id holds U+0000, and PostgreSQL refuses it in a query parameter.
  if (id.includes("\u0000")) return { kind: "queue", rows: [] };
  const base = db.selectFrom("messages").selectAll().where("account_id", "=", accountId);
  if (isQueueId(id)) {
    return { kind: "queue", rows: await base.where("id", "=", id).execute() };
  }
  if (BROADCAST_ID.test(id)) {
    const rows = await base.where("broadcast_id", "=", id).orderBy("id").limit(10_000).execute();
    if (rows.length > 0) return { kind: "broadcast", rows };
  }
  return { kind: "upstream", rows: await base.where("upstream_id", "=", id).limit(100).execute() };
}
