// Migration 0002: messages with their first indexes, Idempotency-Keys and sequences.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";

export function messages(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("messages")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("channel", "text", (c) => c.notNull())
        .addColumn("broadcast_id", "text", (c) => c.notNull())
        .addColumn("recipient", "text", (c) => c.notNull())
        .addColumn("sender", "text", (c) => c.notNull())
        .addColumn("body", "text", (c) => c.notNull())
        .addColumn("encoding", "text")
        .addColumn("segments", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("flash", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("route", "text", (c) => c.notNull())
        .addColumn("lane", "integer", (c) => c.notNull())
        .addColumn("wallet", "text", (c) => c.notNull())
        .addColumn("credits", "bigint", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("due_at", "bigint", (c) => c.notNull())
        .addColumn("lease_until", "bigint")
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("connector", "text")
        .addColumn("upstream_id", "text")
        .addColumn("error_code", "text")
        .addColumn("error_message", "text")
        .addColumn("dlt_entity_id", "text")
        .addColumn("dlt_template_id", "text")
        .addColumn("meta", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("submitted_at", "bigint")
        .addColumn("done_at", "bigint")
        .execute();
      // The dispatcher's claim: due messages of a lane, oldest first; only queued rows are indexed.
      await db.schema
        .createIndex("messages_queued")
        .on("messages")
        .columns(["lane", "due_at"])
        .where(sql.ref("status"), "=", "queued")
        .execute();
      await db.schema
        .createIndex("messages_scheduled")
        .on("messages")
        .column("due_at")
        .where(sql.ref("status"), "=", "scheduled")
        .execute();
      await db.schema
        .createIndex("messages_dispatching")
        .on("messages")
        .column("lease_until")
        .where(sql.ref("status"), "=", "dispatching")
        .execute();
      await db.schema
        .createIndex("messages_submitted")
        .on("messages")
        .columns(["connector", "submitted_at"])
        .where(sql.ref("status"), "=", "submitted")
        .execute();
      await db.schema.createIndex("messages_by_broadcast").on("messages").column("broadcast_id").execute();
      await db.schema.createIndex("messages_by_upstream").on("messages").column("upstream_id").execute();
      await db.schema
        .createIndex("messages_by_account_time")
        .on("messages")
        .columns(["account_id", "created_at"])
        .execute();

      await db.schema
        .createTable("idempotency_keys")
        .addColumn("account_id", "bigint", (c) => c.notNull())
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("request_hash", "text", (c) => c.notNull())
        .addColumn("response", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("idempotency_keys_pk", ["account_id", "key"])
        .execute();

      await db.schema
        .createTable("sequences")
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("value", "bigint", (c) => c.notNull())
        .execute();
    },
  };
}
