// Migration 0001: accounts, wallets, the ledger and the settings table.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function accountsAndLedger(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db, engine, "accounts")
        .addColumn("username", "text", (c) => c.notNull().unique())
        .addColumn("password_hash", "text", (c) => c.notNull())
        .addColumn("role", "text", (c) => c.notNull().defaultTo("customer"))
        .addColumn("status", "text", (c) => c.notNull().defaultTo("active"))
        .addColumn("time_zone", "text", (c) => c.notNull().defaultTo("Asia/Kolkata"))
        .addColumn("flood_limit", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("get_api_enabled", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("international_enabled", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("failed_logins", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("locked_until", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("wallets")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("wallet", "text", (c) => c.notNull())
        .addColumn("balance", "bigint", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("wallets_pk", ["account_id", "wallet"])
        .addCheckConstraint("wallets_not_negative", sql`balance >= 0`)
        .execute();

      await withId(db, engine, "ledger_entries")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("wallet", "text", (c) => c.notNull())
        .addColumn("amount", "bigint", (c) => c.notNull())
        .addColumn("balance_after", "bigint", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("ref", "text")
        .addColumn("note", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("ledger_entries_once")
        .on("ledger_entries")
        .columns(["account_id", "kind", "ref"])
        .unique()
        .execute();
      await db.schema
        .createIndex("ledger_entries_by_account_time")
        .on("ledger_entries")
        .columns(["account_id", "wallet", "created_at"])
        .execute();

      await withId(db, engine, "api_keys")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("prefix", "text", (c) => c.notNull())
        .addColumn("key_hash", "text", (c) => c.notNull().unique())
        .addColumn("name", "text")
        .addColumn("rate_limit", "integer", (c) => c.notNull().defaultTo(60))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("revoked_at", "bigint")
        .execute();
      await db.schema.createIndex("api_keys_by_account").on("api_keys").column("account_id").execute();

      await withId(db, engine, "sender_ids")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("sender", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
        .addColumn("note", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("sender_ids_once", ["account_id", "sender"])
        .execute();

      await db.schema
        .createTable("settings")
        .addColumn("key", "text", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .execute();
    },
  };
}
