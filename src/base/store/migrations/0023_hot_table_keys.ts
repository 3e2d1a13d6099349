// PostgreSQL: the two tables written for every message, messages and ledger_entries, no longer
// carry a foreign key to accounts. A foreign key is checked per inserted row by a trigger that
// runs a query on accounts and locks the account's row (FOR KEY SHARE): for a group of 100
// accepted messages, 200 queries and locks on one row, about 7 µs of server CPU per message of
// ~105 end to end (bench/smpp-e2e.mjs, 3 rounds alternated). What the key guarded cannot happen:
// accounts are never deleted (a closed account keeps its row), and every row is written for
// the account the request was authenticated as, or the message's own. Every other table keeps
// its keys. SQLite keeps these too: its check is one rowid look-up, and dropping a key there
// means rebuilding the table.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";

export function hotTableKeys(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine !== "postgres") return;
      await sql`alter table messages drop constraint if exists messages_account_id_fkey`.execute(db);
      await sql`alter table ledger_entries drop constraint if exists ledger_entries_account_id_fkey`.execute(db);
    },
  };
}
