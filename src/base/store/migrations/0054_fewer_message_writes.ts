// Fewer writes per message (issue 43, item 3; docs/decisions/0131-fewer-writes-per-message.md).
// messages_by_connector_submit (0037), a full index of (connector, submitted_at), took an entry
// at every accept (both null), was rewritten at the submit and, on PostgreSQL, given a new entry
// at every status change (none is heap-only: status is in the partial indexes' WHERE), for one
// query that adaptive routes run every few seconds. That query now reads a connector's latest final
// messages through messages_by_connector_done (0033), which the delivery-rate alert reads
// already and which takes one entry per message, at its end.
import type { Kysely } from "kysely";

export function fewerMessageWrites() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex("messages_by_connector_submit").ifExists().execute();
    },
  };
}
