// Delivery reports that matched no message yet: a carrier's report that overtook the record of
// its submit (an aggregator that calls back before its own answer arrives, or while the database
// was away). They were held only in the memory of the process that took them, retried for a
// minute: a process that died in that time, an `api` process in a scale-out whose worker recorded
// the submit after the minute, lost the report, and the message waited for it until it expired.
// Now such a report is stored in the transaction that found no message for it, before the
// carrier hears its 200, and applied by whichever process finds its message submitted.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";

export function earlyReports(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Compared with messages' connector and upstream_id, which are COLLATE "C" on PostgreSQL (0022).
      const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
      await db.schema
        .createTable("early_reports")
        .addColumn("connector", key, (c) => c.notNull())
        .addColumn("upstream_id", key, (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("error_code", "text")
        .addColumn("error_message", "text")
        .addColumn("received_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("early_reports_pkey", ["connector", "upstream_id"])
        .execute();
    },
  };
}
