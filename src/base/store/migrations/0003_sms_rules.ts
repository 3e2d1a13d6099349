// The SMS rule set: DLT entities, headers and content templates per account, the DND
// registry, per-day flood counters, per-account switches; and expiry of idempotency keys.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function smsRules(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex("idempotency_keys_by_time").on("idempotency_keys").column("created_at").execute();

      await withId(db, engine, "templates")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("content", "text", (c) => c.notNull())
        .addColumn("dlt_template_id", "text")
        .addColumn("entity_id", "text")
        .addColumn("sender", "text")
        .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
        .addColumn("notes", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("templates_by_account").on("templates").columns(["account_id", "status"]).execute();

      for (const [table, column] of [
        ["dlt_entities", "entity_id"],
        ["dlt_headers", "header"],
      ] as const) {
        await withId(db, engine, table)
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          .addColumn(column, "text", (c) => c.notNull())
          .addColumn("status", "text", (c) => c.notNull().defaultTo("approved"))
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addUniqueConstraint(`${table}_once`, ["account_id", column])
          .execute();
      }

      // Numbers as integers: on SQLite the key is the rowid itself, the cheapest lookup there is.
      await db.schema
        .createTable("dnd_numbers")
        .addColumn("number", engine === "sqlite" ? "integer" : "bigint", (c) => c.primaryKey())
        .execute();

      await db.schema
        .createTable("flood_counters")
        .addColumn("account_id", "bigint", (c) => c.notNull())
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("count", "bigint", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("flood_counters_pk", ["account_id", "day"])
        .execute();

      await db.schema
        .alterTable("accounts")
        .addColumn("dlt_scrubbing", "integer", (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema
        .alterTable("accounts")
        .addColumn("promo_sender_enabled", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      // Route codes the account may use, comma-separated (T, P, PS, I).
      await db.schema
        .alterTable("accounts")
        .addColumn("routes", "text", (c) => c.notNull().defaultTo(sql`'T,P'`))
        .execute();
      await db.schema.alterTable("messages").addColumn("template_id", "bigint").execute();
    },
  };
}
