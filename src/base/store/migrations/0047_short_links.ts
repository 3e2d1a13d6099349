// Tracked short links (issue 40, item 6): a message's links inside {#var#} values replaced by
// SHORT_LINK_BASE/<code> when the send asks (`shorten_urls`, legacy `shorturl=1`, or the
// account's default). `short_links` maps a code to its message and original link; `link_clicks`
// keeps each click (time, user agent, the address as an HMAC); a bulk part keeps where its
// links are, shortened per recipient by the expander (docs/decisions/0122-tracked-short-links.md).
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function shortLinks(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("short_links")
        .addColumn("code", "text", (c) => c.primaryKey())
        .addColumn("message_id", "text", (c) => c.notNull())
        .addColumn("account_id", "bigint", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("clicks", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("short_links_by_message").on("short_links").column("message_id").execute();
      await withId(db, engine, "link_clicks")
        .addColumn("code", "text", (c) => c.notNull())
        .addColumn("message_id", "text", (c) => c.notNull())
        .addColumn("account_id", "bigint", (c) => c.notNull())
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("user_agent", "text")
        .addColumn("address_hash", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("link_clicks_by_message").on("link_clicks").columns(["message_id", "at"]).execute();
      await db.schema
        .alterTable("accounts")
        .addColumn("shorten_urls", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable("bulk_parts").addColumn("short_links", "text").execute();
    },
  };
}
