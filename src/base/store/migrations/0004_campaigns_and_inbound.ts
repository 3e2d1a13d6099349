// Bulk jobs, contact groups, inbound SMS (virtual numbers, keywords, received messages) and
// the per-account suppression list (STOP and other opt-out words).
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function campaignsAndInbound(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // A bulk job: its messages share the job's batch id (their broadcast id) and job_id.
      // Counters are moved in the same transaction as the message state they count.
      await withId(db, engine, "bulk_jobs")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("batch_id", "text", (c) => c.notNull().unique())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("route", "text", (c) => c.notNull())
        .addColumn("sender", "text", (c) => c.notNull())
        .addColumn("group_id", "bigint")
        .addColumn("total", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("rejected", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("delivered", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("failed", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("cancelled", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("credits", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("scheduled_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addColumn("started_at", "bigint")
        .addColumn("completed_at", "bigint")
        .execute();
      await db.schema.createIndex("bulk_jobs_by_account").on("bulk_jobs").columns(["account_id", "id"]).execute();
      await db.schema.alterTable("messages").addColumn("job_id", "bigint").execute();
      // A bulk call is stored as one part (its recipients in one column) and fanned out into
      // message rows by the expander in chunks, as the queue makes room: a 100,000-recipient
      // call is one row to write at acceptance, and the queue never holds a million rows.
      await withId(db, engine, "bulk_parts")
        .addColumn("job_id", "bigint", (c) => c.notNull().references("bulk_jobs.id"))
        .addColumn("account_id", "bigint", (c) => c.notNull())
        .addColumn("broadcast_id", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("recipients", "text", (c) => c.notNull())
        .addColumn("count", "integer", (c) => c.notNull())
        .addColumn("next_index", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("channel", "text", (c) => c.notNull())
        .addColumn("sender", "text", (c) => c.notNull())
        .addColumn("body", "text", (c) => c.notNull())
        .addColumn("encoding", "text")
        .addColumn("segments", "integer", (c) => c.notNull())
        .addColumn("flash", "integer", (c) => c.notNull())
        .addColumn("route", "text", (c) => c.notNull())
        .addColumn("lane", "integer", (c) => c.notNull())
        .addColumn("wallet", "text", (c) => c.notNull())
        .addColumn("credits", "bigint", (c) => c.notNull())
        .addColumn("dlt_entity_id", "text")
        .addColumn("dlt_template_id", "text")
        .addColumn("template_id", "bigint")
        .addColumn("due_at", "bigint", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("bulk_parts_pending")
        .on("bulk_parts")
        .columns(["due_at", "id"])
        .where(sql.ref("status"), "=", "pending")
        .execute();
      await db.schema.createIndex("bulk_parts_by_broadcast").on("bulk_parts").column("broadcast_id").execute();
      // Reports are matched on (connector, upstream_id). With an index on upstream_id alone,
      // SQLite preferred the partial index of submitted messages (connector = ?), which scans
      // every submitted message per report: fine with a short backlog, quadratic behind a bulk
      // job (216 ms per 500 reports at 100,000 submitted). Two equality terms win the choice.
      // Partial: a message has no upstream id until it is submitted, so accepting one adds
      // nothing to this index (an equality on upstream_id implies IS NOT NULL to both planners).
      await db.schema.dropIndex("messages_by_upstream").execute();
      await db.schema
        .createIndex("messages_by_upstream")
        .on("messages")
        .columns(["upstream_id", "connector"])
        .where(sql.ref("upstream_id"), "is not", null)
        .execute();

      await withId(db, engine, "contact_groups")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("description", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("contact_groups_name_once", ["account_id", "name"])
        .execute();
      await withId(db, engine, "contacts")
        .addColumn("group_id", "bigint", (c) => c.notNull().references("contact_groups.id").onDelete("cascade"))
        .addColumn("number", "text", (c) => c.notNull())
        .addColumn("name", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("contacts_number_once", ["group_id", "number"])
        .execute();

      await withId(db, engine, "inbound_numbers")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("number", "text", (c) => c.notNull().unique())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await withId(db, engine, "keywords")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("response_type", "text", (c) => c.notNull())
        .addColumn("static_message", "text")
        .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("keywords_key_once", ["account_id", "key"])
        .execute();
      await withId(db, engine, "inbound_messages")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("number", "text", (c) => c.notNull())
        .addColumn("sender", "text", (c) => c.notNull())
        .addColumn("body", "text", (c) => c.notNull())
        .addColumn("keyword_id", "bigint")
        .addColumn("connector", "text")
        .addColumn("upstream_id", "text")
        .addColumn("reply_message_id", "text")
        .addColumn("received_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("inbound_messages_by_account")
        .on("inbound_messages")
        .columns(["account_id", "received_at"])
        .execute();
      await db.schema
        .createIndex("inbound_messages_by_keyword")
        .on("inbound_messages")
        .columns(["keyword_id", "received_at"])
        .execute();
      // A connector may deliver the same inbound message twice; it is stored once.
      await db.schema
        .createIndex("inbound_messages_upstream_once")
        .on("inbound_messages")
        .columns(["connector", "upstream_id"])
        .unique()
        .where(sql.ref("upstream_id"), "is not", null)
        .execute();

      await db.schema
        .createTable("suppressions")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("number", "text", (c) => c.notNull())
        .addColumn("reason", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("suppressions_pk", ["account_id", "number"])
        .execute();
    },
  };
}
