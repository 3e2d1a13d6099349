// Usernames become unique regardless of case (an index on lower(username)). Accounts created
// before this whose names differ only in case would break the index: the oldest (lowest id)
// keeps its name, each later one is renamed `<name>~<id>` ('~' is in no name an operator can
// create, so the new name is free) and a warning names it. Nothing else changes: balances,
// keys and messages stay with the account, its API keys keep working, and only a legacy
// login by the old name needs the new one.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";

export function usernamesCaseInsensitive(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const { rows } = await sql<{ id: number; username: string }>`
        select id, username from accounts a
        where exists (select 1 from accounts b where lower(b.username) = lower(a.username) and b.id < a.id)
        order by id`.execute(db);
      for (const row of rows) {
        const renamed = `${row.username}~${row.id}`;
        await sql`update accounts set username = ${renamed} where id = ${row.id}`.execute(db);
        process.stderr.write(
          `switchboard: migration 0012 renamed account "${row.username}" (id ${row.id}) to "${renamed}": ` +
            "another account has the same name in another case, and usernames are now unique regardless of case.\n",
        );
      }
      await db.schema
        .createIndex("accounts_username_nocase")
        .on("accounts")
        .unique()
        .expression(sql`lower(username)`)
        .execute();
    },
  };
}
