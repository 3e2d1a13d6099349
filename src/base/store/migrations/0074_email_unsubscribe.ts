// One-click unsubscribe for email (RFC 8058, decision 0171): each account's email suppression
// list (addresses in lower case, what put them there and the message whose link did), and
// whether a send carries List-Unsubscribe (1, the default) or is transactional mail without it (0).
import type { Kysely } from "kysely";

export function emailUnsubscribe() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("email_suppressions")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("reason", "text", (c) => c.notNull())
        .addColumn("message_id", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("email_suppressions_pk", ["account_id", "address"])
        .execute();
      await db.schema
        .alterTable("email_contents")
        .addColumn("list_unsubscribe", "integer", (c) => c.notNull().defaultTo(1))
        .execute();
    },
  };
}
