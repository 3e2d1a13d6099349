// WhatsApp: each account's business-account connection, its synced templates, the 24-hour
// windows its customers opened, their inbound messages; message status times; wallet holds.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function whatsapp(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("whatsapp_accounts")
        .addColumn("account_id", "bigint", (c) => c.primaryKey().references("accounts.id"))
        .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(0))
        // Null: the gateway's default connector (WHATSAPP_CONNECTOR).
        .addColumn("connector", "text")
        .addColumn("phone_number_id", "text")
        .addColumn("display_phone_number", "text")
        .addColumn("waba_id", "text")
        .addColumn("access_token", "text")
        // A test (sandbox) sender: every send is limited to the test numbers.
        .addColumn("sandbox", "integer", (c) => c.notNull().defaultTo(0))
        // JSON array of recipients (digits with country code) a test-only template may reach.
        .addColumn("test_numbers", "text", (c) => c.notNull().defaultTo("[]"))
        .addColumn("templates_synced_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      // Meta's callbacks name the phone number: it must lead to one account.
      await db.schema
        .createIndex("whatsapp_accounts_by_phone")
        .on("whatsapp_accounts")
        .column("phone_number_id")
        .unique()
        .where(sql.ref("phone_number_id"), "is not", null)
        .execute();

      await withId(db, engine, "whatsapp_templates")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("upstream_id", "text")
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("language", "text", (c) => c.notNull())
        .addColumn("category", "text", (c) => c.notNull())
        // Meta's status: APPROVED, PAUSED, DISABLED, PENDING, REJECTED, ...
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("body", "text", (c) => c.notNull())
        .addColumn("param_count", "integer", (c) => c.notNull())
        // NONE, TEXT, IMAGE, VIDEO, DOCUMENT, LOCATION.
        .addColumn("header_format", "text", (c) => c.notNull())
        .addColumn("header_param_count", "integer", (c) => c.notNull())
        // Meta's components, as synced (JSON).
        .addColumn("components", "text", (c) => c.notNull())
        .addColumn("reason", "text")
        // Operator's mark: only the test numbers may receive it (kept across syncs).
        .addColumn("test_only", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("synced_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("whatsapp_templates_key")
        .on("whatsapp_templates")
        .columns(["account_id", "name", "language"])
        .unique()
        .execute();

      // When each customer last wrote to the account: its 24-hour window runs from there.
      await db.schema
        .createTable("whatsapp_sessions")
        .addColumn("account_id", "bigint", (c) => c.notNull())
        .addColumn("wa_id", "text", (c) => c.notNull())
        .addColumn("last_inbound_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("whatsapp_sessions_pk", ["account_id", "wa_id"])
        .execute();

      await withId(db, engine, "whatsapp_inbound")
        .addColumn("account_id", "bigint", (c) => c.notNull())
        .addColumn("upstream_id", "text", (c) => c.notNull().unique())
        .addColumn("from_number", "text", (c) => c.notNull())
        .addColumn("to_number", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("text", "text")
        .addColumn("media_id", "text")
        .addColumn("received_at", "bigint", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("whatsapp_inbound_by_account")
        .on("whatsapp_inbound")
        .columns(["account_id", "id"])
        .execute();

      await db.schema.alterTable("messages").addColumn("delivered_at", "bigint").execute();
      await db.schema.alterTable("messages").addColumn("read_at", "bigint").execute();
      // A WhatsApp send in flight: its row holds the credit until the upstream answers.
      await db.schema
        .createIndex("messages_sending")
        .on("messages")
        .column("lease_until")
        .where(sql.ref("status"), "=", "sending")
        .execute();
      // Credits held for sends waiting on a synchronous upstream; spendable = balance - held.
      await db.schema
        .alterTable("wallets")
        .addColumn("held", "bigint", (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
