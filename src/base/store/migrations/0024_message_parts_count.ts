// Each SMPP part row says how many parts its message has, so that a receipt for a one-part
// message (nearly all) is matched with one look-up of its id: without the count, every receipt
// also read its message's other parts by message id, to know whether it was the last one
// pending (the receipts' look-up was the largest statement of the server's time end to end,
// bench/smpp-e2e.mjs). Rows stored before this migration have none and are read as before.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function messagePartsCount(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("message_parts").addColumn("part_count", "integer").execute();
    },
  };
}
