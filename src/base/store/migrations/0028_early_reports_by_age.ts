// Early delivery reports are bounded per connector (EARLY_REPORTS_MAX_PER_CONNECTOR), the oldest
// dropped first: this index finds a connector's oldest without sorting all it keeps.
import type { Kysely } from "kysely";

export function earlyReportsByAge() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex("early_reports_by_age")
        .on("early_reports")
        .columns(["connector", "received_at"])
        .execute();
    },
  };
}
