// messages.dlt_tm_chain and messages.dlt_scrub: an SMS's DLT telemarketer chain as declared for
// its entity when it was accepted (`PE,TM1,…,TMn`, the IDs a carrier is handed, or their SHA-256)
// and what the DLT scrubbing did to it (matched, unmatched, off, international), so the operator
// can say afterwards why a carrier dropped it (docs/decisions/0145-dlt-facts-per-message.md).
// bulk_parts carry the same two until the expander makes their messages. Nullable, no default
// and no index: adding them rewrites no table on either engine, and the hot insert gains two
// parameters. Rows accepted before this migration have null (not recorded).
import type { Kysely } from "kysely";

export function messageDltChainScrub() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of ["messages", "bulk_parts"]) {
        await db.schema.alterTable(table).addColumn("dlt_tm_chain", "text").execute();
        await db.schema.alterTable(table).addColumn("dlt_scrub", "text").execute();
      }
    },
  };
}
