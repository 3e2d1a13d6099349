// What a connector's recent messages came to, for adaptive routes' scores (carriers/route-scores.ts):
// measured from the messages table, so that the process that routes sees the receipts whichever
// process or thread applied them. Read through messages_by_connector_submit (migration 0037),
// partial since 0054: only submitted messages have an entry. By submit time, the gateway's own
// clock: a receipt's done date is the carrier's, to the minute.
import type { Db } from "../../base/store/store.js";

export interface ConnectorOutcome {
  recipient: string;
  route: string;
  status: string;
  created_at: number;
  submitted_at: number;
  done_at: number | null;
}

/** The query of recentConnectorOutcomes (its plan is tested: test/base/store/message-indexes.test.ts). */
export function recentConnectorOutcomesQuery(db: Db, connector: string, since: number, limit: number) {
  return db
    .selectFrom("messages")
    .select(["recipient", "route", "status", "created_at", "submitted_at", "done_at"])
    .where("connector", "=", connector)
    .where("submitted_at", ">=", since)
    .orderBy("submitted_at", "desc")
    .limit(limit);
}

/** The connector's last `limit` messages submitted since `since`, newest first. */
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
    submitted_at: Number(row.submitted_at),
    done_at: row.done_at === null ? null : Number(row.done_at),
  }));
}
