// Users and roles (issue 42, items 1 and 5; decisions 0126, 0127): an account's users, each with
// its login, role and password (null while an invitation is pending, whose token is kept as its
// SHA-256); a console session names the user it was signed in as (null: the account's owner login).
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function users(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db, engine, "account_users")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("login", "text", (c) => c.notNull())
        .addColumn("email", "text")
        .addColumn("display_name", "text")
        .addColumn("password_hash", "text")
        .addColumn("user_role", "text", (c) => c.notNull())
        .addColumn("invite_hash", "text")
        .addColumn("invite_expires_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      // Logins are stored lower-cased: one index serves the sign-in's lookup and keeps them unique.
      await db.schema
        .createIndex("account_users_by_login")
        .on("account_users")
        .columns(["account_id", "login"])
        .unique()
        .execute();
      await db.schema.createIndex("account_users_by_invite").on("account_users").column("invite_hash").execute();
      await db.schema.alterTable("console_sessions").addColumn("user_id", "bigint").execute();
    },
  };
}
