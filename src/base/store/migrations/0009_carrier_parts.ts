// Carriers (issue 10): the parts a carrier message went out as. An SMPP message longer than one
// SMS is several submit_sm, each with its own message id and delivery receipt; a receipt names
// one part, and the message is final once all its parts are.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function carrierParts(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("message_parts")
        .addColumn("message_id", "text", (c) => c.notNull())
        .addColumn("part_index", "integer", (c) => c.notNull())
        .addColumn("connector", "text", (c) => c.notNull())
        // The carrier's id of this part (submit_sm_resp message_id); part 0's is the message's upstream_id.
        .addColumn("upstream_id", "text", (c) => c.notNull())
        // pending, delivered, failed.
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("error_code", "text")
        .addColumn("done_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("message_parts_pkey", ["message_id", "part_index"])
        .execute();
      // Receipts name a part by the carrier's id.
      await db.schema
        .createIndex("message_parts_by_upstream")
        .on("message_parts")
        .columns(["connector", "upstream_id"])
        .execute();
    },
  };
}
