// DLT link and callback white-lists (issue 40, item 1): per account and DLT entity, the URLs
// (exact, or a prefix ending in / or ?), APK and OTT links, and callback numbers an SMS may
// carry. `kind` is `url` or `callback`; `value` is the normalised link or number
// (src/channels/sms/dlt-links.ts); `status` as for every request an account makes
// (docs/decisions/0115-dlt-link-whitelists.md).
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function dltWhitelists(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db, engine, "dlt_links")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("entity_id", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull().defaultTo("approved"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("dlt_links_once", ["account_id", "entity_id", "kind", "value"])
        .execute();
      // The approval queue reads pending rows across accounts.
      await db.schema.createIndex("dlt_links_by_status").on("dlt_links").columns(["status", "kind"]).execute();
    },
  };
}
