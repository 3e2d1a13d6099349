// An account may ask for a caller number (pending until the operator approves it); the numbers
// an operator added before this were approvals, and stay approved.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function voiceCallerRequests(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("voice_caller_ids")
        .addColumn("status", "text", (c) => c.notNull().defaultTo("approved"))
        .execute();
    },
  };
}
