// The SMPP server (issue 21): an account's SMPP credentials and limits, and the deliver_sm it
// owes its receiver binds (delivery receipts and MO messages), kept until the client answers
// deliver_sm_resp OK, so nothing is lost while no receiver is bound.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function smppServer(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("smpp_accounts")
        .addColumn("account_id", "bigint", (c) => c.primaryKey().references("accounts.id").onDelete("cascade"))
        .addColumn("password_hash", "text", (c) => c.notNull())
        .addColumn("max_binds", "integer", (c) => c.notNull())
        .addColumn("submits_per_second", "integer", (c) => c.notNull())
        .addColumn("allowed_ips", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await withId(db, engine, "smpp_outbox")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("message_id", "text")
        .addColumn("payload", "text", (c) => c.notNull())
        .addColumn("lease_until", "bigint")
        .addColumn("attempts", "integer", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("smpp_outbox_account").on("smpp_outbox").columns(["account_id", "id"]).execute();
    },
  };
}
