// The log of refusals (issue 38, item 3): every refused send of every family and the SMPP
// server, with what was asked (bounded, never a credential), the answer in the family's dialect
// and why. Read newest first by account and by everyone; pruned by age (REFUSAL_LOG_DAYS).
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function refusals(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // No foreign key to accounts: a refusal outlives nothing and must never block a removal.
      await withId(db, engine, "refusals")
        .addColumn("account_id", "bigint")
        .addColumn("family", "text", (c) => c.notNull())
        .addColumn("operation", "text", (c) => c.notNull())
        .addColumn("recipients", "text")
        .addColumn("recipient_count", "integer", (c) => c.notNull())
        .addColumn("sender", "text")
        .addColumn("text", "text")
        .addColumn("http_status", "integer")
        .addColumn("code", "text", (c) => c.notNull())
        .addColumn("answer", "text", (c) => c.notNull())
        .addColumn("reason", "text", (c) => c.notNull())
        .addColumn("request_id", "text", (c) => c.notNull())
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("refusals_by_account").on("refusals").columns(["account_id", "id"]).execute();
      await db.schema.createIndex("refusals_by_created").on("refusals").columns(["created_at"]).execute();
    },
  };
}
