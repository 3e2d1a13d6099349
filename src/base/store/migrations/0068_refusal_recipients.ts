// The log of refusals found by recipient and by send (decision 0159): each row's recipient as
// one key (`recipient_key`, the number as the message list stores it, so a number written any
// way finds it), the keys of a refused send that named several in refusal_recipients, and for a
// recipient left out of an accepted send the broadcast and bulk job it was left out of. Both
// read through an index. Rows written before keep their one recipient as it was asked (found
// as before: as asked, with or without +); a refused send to several written before is not keyed.
import type { Kysely } from "kysely";
import { sql } from "kysely";

export function refusalRecipients() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("refusals").addColumn("recipient_key", "text").execute();
      await db.schema.alterTable("refusals").addColumn("broadcast_id", "text").execute();
      await db.schema.alterTable("refusals").addColumn("job_id", "bigint").execute();
      await sql`update refusals set recipient_key = recipients where recipient_count = 1 and recipients is not null`.execute(
        db,
      );
      await db.schema.createIndex("refusals_by_recipient").on("refusals").columns(["recipient_key", "id"]).execute();
      // With the account: the account's page of a broadcast is read in order, whichever index SQLite would prefer.
      await db.schema
        .createIndex("refusals_by_broadcast")
        .on("refusals")
        .columns(["broadcast_id", "account_id", "id"])
        .execute();
      // No foreign key, as refusals has none: pruned with its refusal (pruneRefusals).
      await db.schema
        .createTable("refusal_recipients")
        .addColumn("recipient_key", "text", (c) => c.notNull())
        .addColumn("refusal_id", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("refusal_recipients_pkey", ["recipient_key", "refusal_id"])
        .execute();
      await db.schema
        .createIndex("refusal_recipients_by_refusal")
        .on("refusal_recipients")
        .columns(["refusal_id"])
        .execute();
    },
  };
}
