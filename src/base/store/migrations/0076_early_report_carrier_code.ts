// early_reports.carrier_code: the carrier's own failure code of a kept report, the one the
// error_codes tables map (an SMPP receipt's err:, its code being the receipt's stat), which
// error_code held with the code as JSON since 0184 when the two were apart. And error_message
// keeps the carrier's own message: the reason's description is put before it when the report
// applies, not when it is kept (docs/decisions/0188). Nullable, no default and no index: adding it
// rewrites no table on either engine. The failed rows kept before are converted here
// (kept-report-form.ts): the JSON code split into its two columns, the classified message back
// to the carrier's own, carrier_code the code when none was apart. The table is small (at most
// EARLY_REPORTS_MAX_PER_CONNECTOR rows per connector, most of them a few seconds old), so the rows are read
// and written one by one, the same on both engines.
import { type Kysely, sql } from "kysely";
import { keptReportOfOldForm } from "../kept-report-form.js";

export function earlyReportCarrierCode() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("early_reports").addColumn("carrier_code", "text").execute();
      const rows = await sql<{
        connector: string;
        upstream_id: string;
        error_code: string | null;
        error_message: string | null;
      }>`select connector, upstream_id, error_code, error_message from early_reports
          where status = 'failed' and carrier_code is null`.execute(db);
      for (const row of rows.rows) {
        const form = keptReportOfOldForm(row);
        await sql`update early_reports
                     set error_code = ${form.error_code}, carrier_code = ${form.carrier_code},
                         error_message = ${form.error_message}
                   where connector = ${row.connector} and upstream_id = ${row.upstream_id}`.execute(db);
      }
    },
  };
}
