// What a connector's recent messages came to, for adaptive routes' scores (carriers/route-scores.ts):
// measured from the messages table, so that the process that routes sees the receipts whichever
// process or thread applied them. Read through messages_by_connector_submit (migration 0037).
import type { Db } from "../../base/store/store.js";

export interface ConnectorOutcome {
  recipient: string;
  route: string;
  status: string;
  created_at: number;
  done_at: number | null;
}

/** The connector's last `limit` messages submitted since `since`, newest first. */
export async function recentConnectorOutcomes(
  db: Db,
  connector: string,
  since: number,
  limit: number,
): Promise<ConnectorOutcome[]> {
  const rows = await db
    .selectFrom("messages")
    .select(["recipient", "route", "status", "created_at", "done_at"])
    .where("connector", "=", connector)
    .where("submitted_at", ">=", since)
    .orderBy("submitted_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    ...row,
    created_at: Number(row.created_at),
    done_at: row.done_at === null ? null : Number(row.done_at),
  }));
}
