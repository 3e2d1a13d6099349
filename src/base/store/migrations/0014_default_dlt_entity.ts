// The DLT entity an account's SMS carry when a send names none and the account has several
// white-listed (with one, that one is used): set by the operator, null until then.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function defaultDltEntity(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("accounts").addColumn("default_dlt_entity_id", "text").execute();
    },
  };
}
