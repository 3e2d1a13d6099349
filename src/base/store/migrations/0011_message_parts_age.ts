// The parts of carrier messages are kept for a week after they were sent (housekeeping prunes
// them, a batch at a time, oldest first): this index finds them without reading the table.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function messagePartsAge(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex("message_parts_by_age").on("message_parts").column("created_at").execute();
    },
  };
}
