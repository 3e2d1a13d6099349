// The indexes every message writes (docs/decisions/0131-fewer-writes-per-message.md): the
// messages table carries these and no others, each for a query of its own (an index more is an
// entry more at every accept and, on PostgreSQL, at every status change), and the adaptive
// routes' read of a connector's recent messages goes through the partial index of submitted
// messages by (connector, submitted_at), not a scan.
import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { recentConnectorOutcomesQuery } from "../../../src/domain/messages/connector-receipts.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

describeEachEngine("messages' indexes", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("are the queue's, the lists', the reports' and the connectors' measures, and no others", async () => {
    const names =
      engine === "postgres"
        ? (
            await sql<{ name: string }>`
              select indexname as name from pg_indexes
               where schemaname = current_schema() and tablename = 'messages'`.execute(db.store.db)
          ).rows.map((row) => row.name)
        : (await sql<{ name: string }>`select name from pragma_index_list('messages')`.execute(db.store.db)).rows.map(
            (row) => row.name,
          );
    expect(names.map((name) => name.replace(/^sqlite_autoindex_messages_1$/, "messages_pkey")).sort()).toEqual([
      "messages_by_account_created",
      "messages_by_broadcast_created",
      "messages_by_connector_done",
      "messages_by_connector_submit",
      "messages_by_created",
      "messages_by_upstream",
      "messages_dispatching",
      "messages_pkey",
      "messages_queued",
      "messages_scheduled",
      "messages_sending",
      "messages_submitted",
    ]);
  });

  it("take an entry in (connector, submitted_at) only at the submit, and serve a connector's recent messages", async () => {
    const definition =
      engine === "postgres"
        ? (
            await sql<{ text: string }>`
              select indexdef as text from pg_indexes
               where schemaname = current_schema() and indexname = 'messages_by_connector_submit'`.execute(db.store.db)
          ).rows[0]?.text
        : (
            await sql<{ text: string }>`
              select sql as text from sqlite_master where name = 'messages_by_connector_submit'`.execute(db.store.db)
          ).rows[0]?.text;
    expect(definition).toMatch(/where \(?"?submitted_at"? is not null\)?$/i);
    const query = recentConnectorOutcomesQuery(db.store.db, "smsc-a", 1_700_000_000_000, 500).compile();
    let plan: string;
    if (engine === "postgres") {
      plan = await db.store.db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        const { rows } = await trx.executeQuery<{ "QUERY PLAN": string }>(
          CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
        );
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      });
    } else {
      const { rows } = await db.store.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
      );
      plan = rows.map((row) => row.detail).join("\n");
    }
    expect(plan).toContain("messages_by_connector_submit");
    // Newest first from the index itself: no sort of the connector's messages.
    expect(plan).not.toMatch(/Sort|TEMP B-TREE/);
  });

  it("of the webhook outbox: webhook_id is unique by its making, not by an index, on PostgreSQL", async () => {
    const names =
      engine === "postgres"
        ? (
            await sql<{ name: string }>`
              select indexname as name from pg_indexes
               where schemaname = current_schema() and tablename = 'webhook_deliveries'`.execute(db.store.db)
          ).rows.map((row) => row.name)
        : (
            await sql<{ name: string }>`select name from pragma_index_list('webhook_deliveries')`.execute(db.store.db)
          ).rows.map((row) => row.name);
    expect(names.sort()).toEqual(
      [
        ...(engine === "postgres" ? ["webhook_deliveries_pkey"] : ["sqlite_autoindex_webhook_deliveries_1"]),
        "webhook_deliveries_by_account",
        "webhook_deliveries_by_key",
        "webhook_deliveries_done",
        "webhook_deliveries_due",
        "webhook_deliveries_leased",
      ].sort(),
    );
  });
});
