// The Verify API (issue 41, item 1): `verifications`, one row per code sent to a recipient
// (the code kept as an HMAC, and sealed until the verification is final, docs/decisions/0116),
// and `verify_settings`, an account's template, sender, caller and escalation order for codes.
import type { Kysely } from "kysely";

export function verifications() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("verifications")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("recipient", "text", (c) => c.notNull())
        .addColumn("channel", "text", (c) => c.notNull())
        .addColumn("channels", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("code_hash", "text", (c) => c.notNull())
        .addColumn("code_sealed", "text")
        .addColumn("code_length", "integer", (c) => c.notNull())
        .addColumn("locale", "text")
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("message_id", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("last_sent_at", "bigint", (c) => c.notNull())
        .addColumn("done_at", "bigint")
        .execute();
      await db.schema
        .createIndex("verifications_by_account")
        .on("verifications")
        .columns(["account_id", "id"])
        .execute();
      await db.schema
        .createIndex("verifications_by_recipient")
        .on("verifications")
        .columns(["account_id", "recipient", "created_at"])
        .execute();
      await db.schema
        .createIndex("verifications_pending_by_expiry")
        .on("verifications")
        .columns(["status", "expires_at"])
        .execute();
      await db.schema
        .createTable("verify_settings")
        .addColumn("account_id", "bigint", (c) => c.primaryKey().references("accounts.id"))
        .addColumn("template_id", "text")
        .addColumn("sender_id", "text")
        .addColumn("whatsapp_template", "text")
        .addColumn("caller_id", "text")
        .addColumn("email_from", "text")
        .addColumn("channels", "text")
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
    },
  };
}
