// The username a refused password login named (audit F15): legacy, XML and email sends refused
// for a wrong password are logged with no account, and now with the username asked for (never
// the password), so the operator finds them by it (GET /admin/api/refusals?username=). Null for
// the rows before and for the calls that name none. Read within the list's window, as `code`
// is, so no index. A nullable column without a default rewrites no table on either engine.
import type { Kysely } from "kysely";

export function refusalUsername() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("refusals").addColumn("username", "text").execute();
    },
  };
}
