// Resellers (issue 39, item 3): an account may have a parent account, any depth; a sub-account
// without a card of its own is priced at its parent's price plus `markup_bp` (hundredths of a
// per cent). A send by a sub-account is charged at every level above it too: what each
// ancestor was charged for a message is kept on the message (`upline`: "id:milli,…", parent
// first; null for an account without parent) and on a bulk part (per message), so that a
// refund gives back at every level what it took (docs/decisions/0113-resellers.md).
import type { Kysely } from "kysely";

export function resellers() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("accounts")
        .addColumn("parent_id", "integer", (c) => c.references("accounts.id"))
        .execute();
      await db.schema.alterTable("accounts").addColumn("markup_bp", "integer").execute();
      await db.schema.createIndex("accounts_by_parent").on("accounts").columns(["parent_id", "id"]).execute();
      await db.schema.alterTable("messages").addColumn("upline", "text").execute();
      await db.schema.alterTable("bulk_parts").addColumn("upline", "text").execute();
    },
  };
}
