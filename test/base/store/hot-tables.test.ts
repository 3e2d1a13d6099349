// PostgreSQL: messages and ledger_entries, written for every message, carry no foreign key to
// accounts (migration 0023: its per-row check and lock cost ~7 % of the server's CPU per
// message); every other table that names an account keeps its key, and SQLite keeps them all.
// message_parts pages keep half their room for the receipts' heap-only updates (0025).
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

describeEachEngine("foreign keys to accounts", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db.drop();
  });

  const tablesWithKey = async (): Promise<string[]> => {
    if (engine === "postgres") {
      const { rows } = await sql<{ table_name: string }>`
        select conrelid::regclass::text as table_name from pg_constraint
         where contype = 'f' and confrelid = 'accounts'::regclass
           and connamespace = current_schema()::regnamespace`.execute(db.store.db);
      return rows.map((row) => row.table_name.replace(/^.*\./, "")).sort();
    }
    const { rows } = await sql<{ name: string }>`
      select m.name from sqlite_master m, pragma_foreign_key_list(m.name) k
       where m.type = 'table' and k."table" = 'accounts'`.execute(db.store.db);
    return [...new Set(rows.map((row) => row.name))].sort();
  };

  it(engine === "postgres" ? "are gone from the two tables written per message only" : "are all kept", async () => {
    const tables = await tablesWithKey();
    expect(tables).toContain("wallets");
    expect(tables).toContain("api_keys");
    expect(tables).toContain("webhook_endpoints");
    if (engine === "postgres") {
      expect(tables).not.toContain("messages");
      expect(tables).not.toContain("ledger_entries");
      // And message_parts pages keep half their room for the receipts' heap-only updates.
      const { rows } = await sql<{ options: string[] | null }>`
        select reloptions as options from pg_class
         where oid = to_regclass('message_parts') and relnamespace = current_schema()::regnamespace`.execute(
        db.store.db,
      );
      expect(rows[0]?.options).toEqual(["fillfactor=50"]);
    } else {
      expect(tables).toContain("messages");
      expect(tables).toContain("ledger_entries");
    }
  });
});
