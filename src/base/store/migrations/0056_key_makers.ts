// Keys act as the user who made them (docs/decisions/0140-keys-act-as-their-maker.md): an API
// key's maker, its login for the listings and its account_users id for the role it acts with
// (null: the owner login, the operator, the CLI, or a key made before 0056, which act as the
// owner as they did). An operator's view of an account names the staff login that opened it
// (null for views opened before, and by the operator's own login).
import type { Kysely } from "kysely";

export function keyMakers() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("api_keys").addColumn("created_by", "text").execute();
      await db.schema.alterTable("api_keys").addColumn("created_by_user", "bigint").execute();
      await db.schema.alterTable("account_views").addColumn("viewer_login", "text").execute();
      await db.schema.alterTable("account_views").addColumn("viewer_user_id", "bigint").execute();
    },
  };
}
