// Voice (issue 9): the caller numbers an operator approved per account. Calls themselves are
// message rows (channel voice); their progress lives in the row's meta.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function voice(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db, engine, "voice_caller_ids")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("number", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("voice_caller_ids_once", ["account_id", "number"])
        .execute();
    },
  };
}
