// Failed logins counted per (account, source address), so one address guessing a password
// locks itself out of that account instead of locking the account for everyone (issue 22).
// accounts.address_locks_until is the latest address lock of the account: a login looks the
// address up only while it is in the future, so the common case costs no extra query.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function loginLocks(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("login_failures")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("failures", "integer", (c) => c.notNull())
        .addColumn("locked_until", "bigint")
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("login_failures_pk", ["account_id", "address"])
        .execute();
      await db.schema.alterTable("accounts").addColumn("address_locks_until", "bigint").execute();
    },
  };
}
