// Fewer writes per message (issue 43, item 3; docs/decisions/0131-fewer-writes-per-message.md).
// messages_by_connector_submit (0037), a full index of (connector, submitted_at), took an entry
// at every accept (both columns null, an entry no query reads), rewrote it at the submit and, on
// PostgreSQL, took a new one at every status change (none is heap-only: status is in the
// partial indexes' WHERE). Partial now, only submitted messages have an entry: its one query
// (adaptive routes' recent messages of a connector, `submitted_at >= ?`) implies the WHERE on
// both engines. SQLite: 3 entries a message become 1; PostgreSQL: 3 become 2.
import { type Kysely, sql } from "kysely";

export function fewerMessageWrites() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex("messages_by_connector_submit").ifExists().execute();
      await db.schema
        .createIndex("messages_by_connector_submit")
        .on("messages")
        .columns(["connector", "submitted_at"])
        .where(sql.ref("submitted_at"), "is not", null)
        .execute();
    },
  };
}
