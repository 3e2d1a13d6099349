// The indexes every message writes (docs/decisions/0131-fewer-writes-per-message.md): the
// messages table carries these and no others, each for a query of its own (an index more is an
// entry more at every accept and, on PostgreSQL, at every status change), and the adaptive
// routes' read of a connector's recent messages goes through the partial index of
// (connector, submitted_at), not a scan; the reads of the messages awaiting their report go
// through the partial index of submitted messages, not that one (on SQLite, which has no
// statistics, whatever the rows: each read walked every message the connector ever sent).
import { type CompiledQuery as Compiled, CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { recentConnectorOutcomesQuery } from "../../../src/domain/messages/connector-receipts.js";
import { awaitingReportQuery } from "../../../src/domain/messages/report-transitions.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import { messageRow } from "../../helpers/message-row.js";

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
    const plan = await planOf(recentConnectorOutcomesQuery(db.store.db, "smsc-a", 1_700_000_000_000, 500).compile());
    expect(plan).toContain("messages_by_connector_submit");
    // Newest first from the index itself: no sort of the connector's messages.
    expect(plan).not.toMatch(/Sort|TEMP B-TREE/);
  });

  it("of submitted messages serve the reads of those awaiting their report", async () => {
    // Many delivered messages, each with its entry in (connector, submitted_at), a few submitted.
    const now = 1_700_000_000_000;
    const account = await createAccountWithKey(
      { store: db.store, clock: systemClock, actor: cliActor() },
      { username: "indexes", password: "indexes-password-1", rateLimit: 0 },
    );
    const rows = Array.from({ length: 400 }, (_, i) =>
      messageRow({
        id: `m${String(i).padStart(4, "0")}`,
        account_id: account.id,
        status: i < 390 ? "delivered" : "submitted",
        connector: "smsc-a",
        submitted_at: now - 60_000 + i,
        created_at: now - 60_000 + i,
        due_at: now - 60_000 + i,
      }),
    );
    await db.store.db.insertInto("messages").values(rows).execute();
    if (engine === "postgres") await sql`analyze messages`.execute(db.store.db);
    const after = { submittedAt: now - 60_000 + 395, id: "m0395" };
    for (const read of [
      { connector: "smsc-a", before: now, limit: 500 },
      { connector: "smsc-a", before: now, ordered: true, limit: 500 },
      { connector: "smsc-a", before: now, after, ordered: true, limit: 500 },
    ]) {
      const query = awaitingReportQuery<{ id: string }>(engine, ["id"], read);
      const plan = await planOf(query.compile(db.store.db));
      expect(plan, JSON.stringify(read)).toContain("messages_submitted");
      expect(plan, JSON.stringify(read)).not.toContain("messages_by_connector_submit");
      const found = (await query.execute(db.store.db)).rows.map((row) => row.id);
      expect(found.sort()).toEqual(
        rows.filter((r) => r.status === "submitted" && (!read.after || r.id > "m0395")).map((r) => r.id),
      );
    }
  });

  /** The plan of `query`: PostgreSQL's with sequential scans off (the table is small), SQLite's. */
  async function planOf(query: Compiled): Promise<string> {
    if (engine === "postgres") {
      return db.store.db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        const { rows } = await trx.executeQuery<{ "QUERY PLAN": string }>(
          CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
        );
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      });
    }
    const { rows } = await db.store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return rows.map((row) => row.detail).join("\n");
  }

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
