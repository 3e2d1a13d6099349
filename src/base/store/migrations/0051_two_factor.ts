// Two-factor sign-in for the console (issue 42, item 2): each login's TOTP factor and its
// recovery codes (hashes), the accounts that require a factor, and the sign-in challenges that
// stand between a password that passed and its second step (docs/decisions/0128-two-factor-sign-in.md).
import type { Kysely } from "kysely";

export function twoFactor() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("two_factors")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("login", "text", (c) => c.notNull())
        .addColumn("secret", "text", (c) => c.notNull())
        .addColumn("confirmed_at", "bigint")
        .addColumn("last_step", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("two_factors_pk", ["account_id", "login"])
        .execute();
      await db.schema
        .createTable("two_factor_recovery_codes")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("login", "text", (c) => c.notNull())
        .addColumn("code_hash", "text", (c) => c.notNull())
        .addColumn("used_at", "bigint")
        .addPrimaryKeyConstraint("two_factor_recovery_codes_pk", ["account_id", "login", "code_hash"])
        .execute();
      await db.schema
        .createTable("two_factor_policies")
        .addColumn("account_id", "bigint", (c) => c.primaryKey().references("accounts.id"))
        .addColumn("required", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("sign_in_challenges")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("login", "text", (c) => c.notNull())
        .addColumn("step", "text", (c) => c.notNull())
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("sign_in_challenges_by_expiry")
        .on("sign_in_challenges")
        .column("expires_at")
        .execute();
    },
  };
}
