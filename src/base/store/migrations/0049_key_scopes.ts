// Keys that can do less (issue 42, item 3): an API key's scopes (comma-separated, null = every
// scope its account can have, as keys made before them keep) and address allow-list (addresses
// and CIDR ranges, comma-separated, null = anywhere); an account's allow-list for password logins
// (docs/decisions/0125-key-scopes.md).
import type { Kysely } from "kysely";

export function keyScopes() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("api_keys").addColumn("scopes", "text").execute();
      await db.schema.alterTable("api_keys").addColumn("allowed_ips", "text").execute();
      await db.schema.alterTable("accounts").addColumn("password_allowed_ips", "text").execute();
    },
  };
}
