// The account's message list (GET /api/v2/messages) reads newest first, a page at a time from
// a (created_at, id) position, by account or by broadcast (a bulk job shares one). Each index
// ends with (created_at, id), so a page is a range of the index whatever the ties: the messages
// a bulk part creates share one created_at, and an index without the id made every page of a
// 100,000-message part sort all of them. The two indexes of 0002 that these extend are
// replaced, not kept beside them, so the send path writes as many index entries as before.
// There is no index by number: it would be one more entry on every insert and, on PostgreSQL,
// on every status change too (bench/message-indexes.mjs); the list checks the number on the
// rows it reads instead.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function messageListing(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex("messages_by_account_time").execute();
      await db.schema
        .createIndex("messages_by_account_created")
        .on("messages")
        .columns(["account_id", "created_at", "id"])
        .execute();
      await db.schema.dropIndex("messages_by_broadcast").execute();
      await db.schema
        .createIndex("messages_by_broadcast_created")
        .on("messages")
        .columns(["broadcast_id", "created_at", "id"])
        .execute();
    },
  };
}
