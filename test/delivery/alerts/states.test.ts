// The alert states on both engines: a condition seen by many evaluators at once, over two stores
// on the same database (two processes), is raised by exactly one of them and cleared by exactly
// one; its window counts from when it was first seen; a condition gone before its window is over
// is forgotten without a word.
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore, type Store } from "../../../src/base/store/store.js";
import { settleAlerts, type Transition } from "../../../src/delivery/alerts/states.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

describeEachEngine("alert states", (engine) => {
  let db: TestDatabase;
  let other: Store;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    other = await openStore(db.target, db.schema ? { pgSchema: db.schema } : {});
  });
  afterAll(async () => {
    await other?.close();
    await db?.drop();
  });

  const condition = (windowMs: number) => ({ subject: "carrier-x", value: null, detail: "down", windowMs });

  /** Twelve evaluators at once, half on each store; every transition any of them made and was told of. */
  async function together(conditions: ReturnType<typeof condition>[], now: number) {
    const told: Transition[] = [];
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        settleAlerts(i % 2 === 0 ? db.store : other, "connector_down", conditions, now, async (_trx, t) => {
          told.push(t);
        }),
      ),
    );
    return { made: made.flat(), told };
  }

  it("raises once and clears once however many evaluate at the same moment", async () => {
    const start = 1_800_000_000_000;
    // Seen: not yet raised (a 5 s window).
    expect((await together([condition(5_000)], start)).made).toEqual([]);
    expect((await together([condition(5_000)], start + 4_999)).made).toEqual([]);
    const raised = await together([condition(5_000)], start + 5_000);
    expect(raised.made.map((t) => t.state)).toEqual(["raised"]);
    expect(raised.told).toHaveLength(1);
    expect(raised.made[0]).toMatchObject({ subject: "carrier-x", since: start, at: start + 5_000 });
    expect((await together([condition(5_000)], start + 6_000)).made).toEqual([]);
    const cleared = await together([], start + 7_000);
    expect(cleared.made.map((t) => t.state)).toEqual(["cleared"]);
    expect(cleared.told).toHaveLength(1);
    expect((await together([], start + 8_000)).made).toEqual([]);
    // Seen again: a new episode, its window counted afresh.
    expect((await together([condition(5_000)], start + 9_000)).made).toEqual([]);
    expect((await together([condition(5_000)], start + 14_000)).made.map((t) => t.state)).toEqual(["raised"]);
    expect((await together([], start + 15_000)).made.map((t) => t.state)).toEqual(["cleared"]);
  });

  it("forgets a condition gone before its window is over, telling nobody", async () => {
    const start = 1_900_000_000_000;
    expect((await together([condition(10_000)], start)).made).toEqual([]);
    const gone = await together([], start + 1_000);
    expect(gone.made).toEqual([]);
    expect(gone.told).toEqual([]);
    expect(await db.store.db.selectFrom("alert_states").selectAll().execute()).toEqual([]);
  });
});
