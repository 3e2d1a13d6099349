// Email (issue 8): sending domains with their DKIM keys, stored templates, the content of each
// send (once, shared by its recipients' message rows), attachments, tracking events, and the
// simulator's captured inbox.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function email(engine: Engine) {
  const blob = engine === "sqlite" ? "blob" : "bytea";
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db, engine, "email_domains")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("domain", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("dkim_selector", "text", (c) => c.notNull())
        .addColumn("dkim_private_key", "text", (c) => c.notNull())
        .addColumn("dkim_public_key", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("email_domains_key")
        .on("email_domains")
        .columns(["account_id", "domain"])
        .unique()
        .execute();

      await withId(db, engine, "email_templates")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("subject", "text", (c) => c.notNull())
        .addColumn("html", "text", (c) => c.notNull())
        .addColumn("text", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("email_templates_by_account").on("email_templates").column("account_id").execute();

      // One row per send: its recipients' message rows point at it (messages.meta.content_id).
      await withId(db, engine, "email_contents")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("broadcast_id", "text", (c) => c.notNull())
        .addColumn("from_address", "text", (c) => c.notNull())
        .addColumn("from_name", "text")
        .addColumn("subject", "text", (c) => c.notNull())
        .addColumn("html", "text", (c) => c.notNull())
        .addColumn("text", "text")
        .addColumn("reply_to", "text")
        // JSON arrays: the visible To and Cc headers (bcc recipients appear in neither).
        .addColumn("to_list", "text", (c) => c.notNull())
        .addColumn("cc_list", "text", (c) => c.notNull())
        .addColumn("track_opens", "integer", (c) => c.notNull())
        .addColumn("track_clicks", "integer", (c) => c.notNull())
        .addColumn("notify_url", "text")
        .addColumn("callback_data", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("email_contents_by_broadcast").on("email_contents").column("broadcast_id").execute();
      // A recipient's message row names the content it shares with the send's other recipients.
      await db.schema.alterTable("messages").addColumn("content_id", "bigint").execute();

      await withId(db, engine, "email_attachments")
        .addColumn("content_id", "bigint", (c) => c.notNull())
        .addColumn("filename", "text", (c) => c.notNull())
        .addColumn("content_type", "text", (c) => c.notNull())
        .addColumn("size", "integer", (c) => c.notNull())
        .addColumn("data", blob, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("email_attachments_by_content")
        .on("email_attachments")
        .column("content_id")
        .execute();

      // Opens, clicks and bounces, per recipient message.
      await withId(db, engine, "email_events")
        .addColumn("message_id", "text", (c) => c.notNull())
        .addColumn("account_id", "bigint", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("detail", "text")
        .addColumn("at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("email_events_by_message").on("email_events").columns(["message_id", "id"]).execute();

      // The simulator's inbox: what a relay would have been given, readable by the operator.
      await withId(db, engine, "email_captured")
        .addColumn("message_id", "text", (c) => c.notNull())
        .addColumn("account_id", "bigint", (c) => c.notNull())
        .addColumn("envelope_from", "text", (c) => c.notNull())
        .addColumn("recipient", "text", (c) => c.notNull())
        .addColumn("subject", "text", (c) => c.notNull())
        .addColumn("raw", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("email_captured_by_account")
        .on("email_captured")
        .columns(["account_id", "id"])
        .execute();
    },
  };
}
