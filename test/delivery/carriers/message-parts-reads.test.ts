// The SMPP connector's read of its batch's stored parts before every batch (storedPartsOf) goes
// by the primary key, whatever the connector: with `connector = ?` in the statement, SQLite's
// planner took the index of (connector, upstream_id) once the list held ten ids and walked every
// part the connector had stored, a read that grew with the table (decision 0137). The connector
// is compared on the rows read; another connector's parts of the same message are left out.
import { CompiledQuery } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { partsByMessageQuery, storedPartsOf, storeParts } from "../../../src/delivery/carriers/smpp/stored-parts.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

const T = 1_795_000_000_000;

describeEachEngine("the stored parts of an SMPP batch", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    // Many parts of one connector, as after a day of traffic, and a few of another.
    for (let from = 0; from < 2_000; from += 500) {
      await storeParts(
        db.store,
        "smsc-a",
        Array.from({ length: 500 }, (_, i) => ({
          messageId: `old-${from + i}`,
          upstreamIds: [`u-${from + i}`],
          sentAt: T,
        })),
        T,
      );
    }
    await storeParts(
      db.store,
      "smsc-a",
      [
        { messageId: "batch-1", upstreamIds: ["a1", "a2"], sentAt: T + 1 },
        { messageId: "batch-2", upstreamIds: ["a3"], sentAt: T + 1 },
      ],
      T + 1,
    );
    await storeParts(db.store, "smsc-b", [{ messageId: "batch-3", upstreamIds: ["b1"], sentAt: T + 1 }], T + 1);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("are read by message id, in order, the connector's only", async () => {
    const ids = ["batch-1", "batch-2", "batch-3", ...Array.from({ length: 20 }, (_, i) => `absent-${i}`)];
    const parts = await storedPartsOf(db.store, ids, "smsc-a");
    expect([...parts.keys()].sort()).toEqual(["batch-1", "batch-2"]);
    expect(parts.get("batch-1")?.map((part) => part.upstream_id)).toEqual(["a1", "a2"]);
    const all = await storedPartsOf(db.store, ids);
    expect([...all.keys()].sort()).toEqual(["batch-1", "batch-2", "batch-3"]);
  });

  it("go through the primary key on SQLite, not the connector's index", async () => {
    if (engine !== "sqlite") return; // PostgreSQL reads them with one prepared statement (any(?)).
    const query = partsByMessageQuery(
      db.store.db,
      Array.from({ length: 100 }, (_, i) => `old-${i}`),
    ).compile();
    const { rows } = await db.store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    const plan = rows.map((row) => row.detail).join("\n");
    expect(plan).toMatch(/USING (INDEX sqlite_autoindex_message_parts_1|PRIMARY KEY) \(message_id=\?\)/);
    expect(plan).not.toContain("message_parts_by_upstream");
  });
});
