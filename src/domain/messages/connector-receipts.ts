// What a connector's recent receipts came to, for adaptive routes' scores (carriers/route-scores.ts):
// measured from the messages table, so that the process that routes sees the receipts whichever
// process or thread applied them. Read through messages_by_connector_done (migration 0033), the
// index the delivery-rate alert reads too; the index by submit time it was read through took
// writes from every message (migration 0054, docs/decisions/0131-fewer-writes-per-message.md).
import type { Db } from "../../base/store/store.js";

export interface ConnectorOutcome {
  recipient: string;
  route: string;
  status: string;
  created_at: number;
  done_at: number | null;
}

/** The query of recentConnectorOutcomes (its plan is tested: test/base/store/message-indexes.test.ts). */
export function recentConnectorOutcomesQuery(db: Db, connector: string, since: number, limit: number) {
  return db
    .selectFrom("messages")
    .select(["recipient", "route", "status", "created_at", "done_at"])
    .where("connector", "=", connector)
    .where("done_at", "is not", null)
    .where("done_at", ">=", since)
    .where("status", "in", ["delivered", "failed"])
    .orderBy("done_at", "desc")
    .limit(limit);
}

/** The connector's last `limit` receipts (delivered or failed) come since `since`, newest first. */
export async function recentConnectorOutcomes(
  db: Db,
  connector: string,
  since: number,
  limit: number,
): Promise<ConnectorOutcome[]> {
  const rows = await recentConnectorOutcomesQuery(db, connector, since, limit).execute();
  return rows.map((row) => ({
    ...row,
    created_at: Number(row.created_at),
    done_at: row.done_at === null ? null : Number(row.done_at),
  }));
}
