// "View as this account" (issue 38): an operator opens an account's console read-only. The view
// is a console session of the account marked with the operator who opened it, and every view is
// recorded (who, which account, when, from where, until when) for the audit log to come.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function accountViews(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("console_sessions").addColumn("viewer_account_id", "bigint").execute();
      await withId(db, engine, "account_views")
        .addColumn("viewer_account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("session_id", "bigint", (c) => c.notNull())
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("user_agent", "text")
        .addColumn("started_at", "bigint", (c) => c.notNull())
        .addColumn("ended_at", "bigint")
        .execute();
      await db.schema
        .createIndex("account_views_by_account")
        .on("account_views")
        .columns(["account_id", "id"])
        .execute();
    },
  };
}
