// Verify's pumping and abuse guards (issue 41, item 2): each verification's destination prefix
// and client address (counted by account and time), the countries an account may verify, and
// the prefixes blocked for low conversion or allowed by the operator (docs/decisions/0117).
import type { Kysely } from "kysely";

export function verifyGuards() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("verifications").addColumn("prefix", "text").execute();
      await db.schema.alterTable("verifications").addColumn("client_ip", "text").execute();
      await db.schema
        .createIndex("verifications_by_prefix")
        .on("verifications")
        .columns(["account_id", "prefix", "created_at"])
        .execute();
      await db.schema
        .createIndex("verifications_by_client_ip")
        .on("verifications")
        .columns(["account_id", "client_ip", "created_at"])
        .execute();
      await db.schema.alterTable("verify_settings").addColumn("countries", "text").execute();
      await db.schema
        .createTable("verify_prefixes")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("prefix", "text", (c) => c.notNull())
        .addColumn("blocked_at", "bigint")
        .addColumn("blocked_until", "bigint")
        .addColumn("samples", "integer")
        .addColumn("conversion", "double precision")
        .addColumn("allowed_at", "bigint")
        .addPrimaryKeyConstraint("verify_prefixes_pk", ["account_id", "prefix"])
        .execute();
    },
  };
}
