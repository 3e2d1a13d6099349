// early_receipts (docs/decisions/0131-fewer-writes-per-message.md, "What stalled the fault suite"):
// an SMPP receipt that names no stored part yet (its part is another process's, not committed when
// it came) is kept here before the SMSC hears it was taken, and applied by whichever process finds
// the part stored (carriers/smpp/early-receipts.ts); it lived only in the memory of the process
// that answered it, and a kill -9 of that process lost it. Its own migration: 0054 was on main
// for a while without it, so a database that ran that 0054 still gets the table.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";

export function earlyReceipts(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Compared with message_parts' connector and upstream_id, COLLATE "C" on PostgreSQL (0022).
      const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
      await db.schema
        .createTable("early_receipts")
        .ifNotExists()
        .addColumn("connector", key, (c) => c.notNull())
        .addColumn("upstream_id", key, (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("stat", "text", (c) => c.notNull())
        .addColumn("err", "text")
        .addColumn("done_at", "bigint")
        .addColumn("received_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("early_receipts_pkey", ["connector", "upstream_id"])
        .execute();
    },
  };
}
