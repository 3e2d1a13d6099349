// whatsapp_early_statuses (docs/decisions/0191): Meta's status for a wamid no message carries yet
// (it came before the send's transaction that records the id committed, or to another node) was
// held only in the memory of the process that answered Meta, retried twice and dropped, so a
// process that stopped in that time lost it. It is kept here before Meta hears its 200, one row
// per wamid and status, and applied when the id is recorded or by upkeep; dropped after an hour.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";

export function whatsAppEarlyStatuses(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Compared with messages' upstream_id, which is COLLATE "C" on PostgreSQL (0022).
      const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
      await db.schema
        .createTable("whatsapp_early_statuses")
        .addColumn("upstream_id", key, (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("errors", "text")
        .addColumn("received_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("whatsapp_early_statuses_pkey", ["upstream_id", "status"])
        .execute();
      await db.schema
        .createIndex("whatsapp_early_statuses_by_age")
        .on("whatsapp_early_statuses")
        .column("received_at")
        .execute();
    },
  };
}
