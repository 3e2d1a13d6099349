// The SMPP server's binds as every process reports them (smpp-server/registry.ts), so the
// operator API and the CLI of any process list who is bound where and can ask the process
// holding a bind to close it; and the retry time of a deliver_sm the client refused, which
// holds back the rows after it so that receipts and MO leave in order.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function smppBinds(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("smpp_binds")
        // The process's random tag and its own count: `3f9a1c2e-7`.
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("process_id", "text", (c) => c.notNull())
        .addColumn("host", "text", (c) => c.notNull())
        .addColumn("pid", "integer", (c) => c.notNull())
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
        .addColumn("mode", "text", (c) => c.notNull())
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("port", "integer", (c) => c.notNull())
        .addColumn("tls", "integer", (c) => c.notNull())
        .addColumn("bound_at", "bigint", (c) => c.notNull())
        .addColumn("submits", "bigint", (c) => c.notNull())
        .addColumn("submit_rate", "double precision", (c) => c.notNull())
        .addColumn("seen_at", "bigint", (c) => c.notNull())
        .addColumn("disconnect_requested_at", "bigint")
        .execute();
      await db.schema.createIndex("smpp_binds_process").on("smpp_binds").column("process_id").execute();
      await db.schema.alterTable("smpp_outbox").addColumn("retry_at", "bigint").execute();
    },
  };
}
