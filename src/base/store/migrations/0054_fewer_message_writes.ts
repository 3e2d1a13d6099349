// Fewer writes per message (issue 43, item 3; docs/decisions/0131-fewer-writes-per-message.md).
// messages_by_connector_submit (0037), a full index of (connector, submitted_at), took an entry
// at every accept (both columns null, an entry no query reads), rewrote it at the submit and, on
// PostgreSQL, took a new one at every status change (none is heap-only: status is in the
// partial indexes' WHERE). Partial now, only submitted messages have an entry: its one query
// (adaptive routes' recent messages of a connector, `submitted_at >= ?`) implies the WHERE on
// both engines. SQLite: 3 entries a message become 1; PostgreSQL: 3 become 2.
// PostgreSQL also drops the unique constraint on webhook_deliveries.webhook_id: no query reads by
// it, the ids are ULIDs made per delivery (delivery-rows.ts), and as no update of a delivery is
// heap-only its index took an entry at the insert and at each update, 4.5 a message with the
// delivery-report webhook on. SQLite keeps it: dropping a column's UNIQUE there rebuilds the table.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";

export function fewerMessageWrites(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine === "postgres") {
        await sql`alter table webhook_deliveries drop constraint if exists webhook_deliveries_webhook_id_key`.execute(
          db,
        );
      }
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
