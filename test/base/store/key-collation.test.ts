// PostgreSQL: the text keys of the hot indexes compare byte by byte (COLLATE "C", migration 0022),
// whatever the database's locale, and the queries that name them with parameters of the
// default collation still use those indexes (the column's collation wins).
import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../helpers/engines.js";

describe.skipIf(!postgresAvailable)("key columns' collation [postgres]", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
  });
  afterAll(async () => {
    await db.drop();
  });

  it("is C for the ids, carrier ids, names and keys of the hot indexes, and the default elsewhere", async () => {
    const { rows } = await sql<{ table_name: string; column_name: string; collation_name: string | null }>`
      select table_name, column_name, collation_name from information_schema.columns
       where table_schema = current_schema() and data_type = 'text'
         and table_name in ('messages', 'message_parts', 'ledger_entries', 'wallets', 'flood_counters', 'webhook_deliveries')`.execute(
      db.store.db,
    );
    const c = rows
      .filter((row) => row.collation_name === "C")
      .map((row) => `${row.table_name}.${row.column_name}`)
      .sort();
    expect(c).toEqual([
      "flood_counters.day",
      "ledger_entries.kind",
      "ledger_entries.ref",
      "ledger_entries.wallet",
      "message_parts.connector",
      "message_parts.message_id",
      "message_parts.upstream_id",
      "messages.broadcast_id",
      "messages.connector",
      "messages.id",
      "messages.upstream_id",
      "wallets.wallet",
      "webhook_deliveries.order_key",
    ]);
    // A message's text is not a key: it keeps the database's collation.
    expect(rows.find((row) => row.table_name === "messages" && row.column_name === "body")?.collation_name).toBeNull();
  });

  it("answers look-ups by a parameter through the index", async () => {
    const plan = await db.store.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const explain = (query: string) =>
        trx.executeQuery<{ "QUERY PLAN": string }>(CompiledQuery.raw(`explain ${query}`, ["x", "y"]));
      return [
        (await explain("select * from messages where upstream_id = $1 and connector = $2")).rows,
        (await explain("select * from message_parts where connector = $1 and upstream_id = any(array[$2])")).rows,
        (await explain("select * from messages where id = $1 or id = $2")).rows,
      ].map((rows) => rows.map((row) => row["QUERY PLAN"]).join("\n"));
    });
    expect(plan[0]).toContain("messages_by_upstream");
    expect(plan[1]).toContain("message_parts_by_upstream");
    expect(plan[2]).toMatch(/messages_pkey/);
  });
});
