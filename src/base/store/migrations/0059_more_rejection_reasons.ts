// rejection_reason on the other kinds of the operator's approval queue (admin/approval-kinds.ts):
// keywords, DLT entity IDs and headers, DLT links (URLs and callback numbers), voice caller
// numbers and email domains, as 0057 gave templates and sender IDs: the operator's words when
// rejecting a request, shown to the account (null when none was given, and once approved).
import type { Kysely } from "kysely";

const TABLES = ["keywords", "dlt_entities", "dlt_headers", "dlt_links", "voice_caller_ids", "email_domains"];

export function moreRejectionReasons() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of TABLES) await db.schema.alterTable(table).addColumn("rejection_reason", "text").execute();
    },
  };
}
