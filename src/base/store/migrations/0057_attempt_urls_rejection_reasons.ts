// webhook_attempts.url: the URL each attempt posted to. A pending delivery follows the account's
// current URL for its event (webhooks/endpoint-changes.ts), so the delivery's own url no longer
// tells where its earlier attempts went. Attempts recorded before this migration have none: they
// went to their delivery's url, which never changed then.
// templates.rejection_reason and sender_ids.rejection_reason: the operator's words when rejecting
// a request, shown to the account (null when none was given, and once approved).
import type { Kysely } from "kysely";

export function attemptUrlsRejectionReasons() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("webhook_attempts").addColumn("url", "text").execute();
      await db.schema.alterTable("templates").addColumn("rejection_reason", "text").execute();
      await db.schema.alterTable("sender_ids").addColumn("rejection_reason", "text").execute();
    },
  };
}
