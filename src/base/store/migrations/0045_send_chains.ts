// Fallback on any send (issue 41, item 3): `send_chains`, one row per POST /api/v2/send, and
// `chain_steps`, one row per step with its condition, its due time and its message once sent
// (docs/decisions/0121). The due times are what make a chain's timers survive a restart.
import type { Kysely } from "kysely";

export function sendChains() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("send_chains")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("recipient", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("outcome", "text")
        .addColumn("step_count", "integer", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("completed_at", "bigint")
        .execute();
      await db.schema.createIndex("send_chains_by_status").on("send_chains").columns(["status", "id"]).execute();
      await db.schema
        .createTable("chain_steps")
        .addColumn("chain_id", "text", (c) => c.notNull())
        .addColumn("position", "integer", (c) => c.notNull())
        .addColumn("channel", "text", (c) => c.notNull())
        .addColumn("recipient", "text", (c) => c.notNull())
        .addColumn("fields", "text", (c) => c.notNull())
        .addColumn("after_on", "text")
        .addColumn("within_ms", "bigint")
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("due_at", "bigint")
        .addColumn("message_id", "text")
        .addColumn("error_code", "text")
        .addColumn("error_message", "text")
        .addColumn("sent_at", "bigint")
        .addColumn("decided_at", "bigint")
        .addPrimaryKeyConstraint("chain_steps_pk", ["chain_id", "position"])
        .execute();
      await db.schema.createIndex("chain_steps_by_status").on("chain_steps").columns(["status", "due_at"]).execute();
    },
  };
}
