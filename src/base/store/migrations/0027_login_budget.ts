// The account's login budget (auth/login-locks.ts): accounts.failed_logins now counts the password
// guesses checked against the account (failures, and checks still running) within a lock period,
// and failed_logins_at is when the last one was granted. A guess is reserved before its argon2
// check, so concurrent guesses cannot pass the lock (issue 36: 59 at once all answered 401).
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function loginBudget(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("accounts").addColumn("failed_logins_at", "bigint").execute();
    },
  };
}
