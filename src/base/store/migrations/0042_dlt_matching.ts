// Strict DLT template matching (issue 40, item 3): `dlt_matching` is `strict` (whitespace
// compared as registered, as operators compare it) or `lenient` (runs of whitespace count as one
// space, as before). New accounts are strict; the accounts that exist when this runs keep the
// lenient matching they were sending under until the operator switches them
// (docs/decisions/0118-strict-dlt-template-matching.md).
import { type Kysely, sql } from "kysely";

export function dltMatching() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("accounts")
        .addColumn("dlt_matching", "text", (c) => c.notNull().defaultTo("strict"))
        .execute();
      await sql`update accounts set dlt_matching = 'lenient'`.execute(db);
    },
  };
}
