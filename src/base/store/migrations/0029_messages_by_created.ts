// The operator's list of every account's messages (GET /admin/api/messages, `switchboard messages
// list`) reads newest first a page at a time from a (created_at, id) position, as an account's
// list does from its own index (0015): without an index of all messages by that key, a page
// sorted the whole table. One more index entry per message written; the entry never changes
// afterwards (neither column does), so on PostgreSQL a status change stays a heap-only update.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function messagesByCreated(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex("messages_by_created").on("messages").columns(["created_at", "id"]).execute();
    },
  };
}
