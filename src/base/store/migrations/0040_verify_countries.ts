// Verify conversion analytics (issue 41): each verification's recipient country, and an index
// that reads an account's verifications by time (GET /api/v2/verify/analytics).
import { type Kysely, sql } from "kysely";

export function verifyCountries() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("verifications").addColumn("country", "text").execute();
      // Item 1 sent to Indian mobiles, stored as their 10 digits.
      await sql`update verifications set country = 'IN' where length(recipient) = 10 and recipient not like '%@%'`.execute(
        db,
      );
      await db.schema
        .createIndex("verifications_by_account_time")
        .on("verifications")
        .columns(["account_id", "created_at"])
        .execute();
    },
  };
}
