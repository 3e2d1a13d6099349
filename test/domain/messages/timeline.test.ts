// A message's timeline on both engines: events of the same instant are listed in the order they
// happen, the route chosen before the submit (routed, then submitted), then the carrier's
// receipt; and the order holds whatever the instants are (a later event is never listed first).
import { afterAll, beforeAll, expect, it } from "vitest";
import { messageHistory } from "../../../src/domain/messages/timeline.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import { messageRow } from "../../helpers/message-row.js";

describeEachEngine("a message's timeline", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db.drop();
  });

  const noParts = async () => [];

  it("lists routed before submitted when both have the same time", async () => {
    const at = Date.parse("2026-12-01T10:00:00Z");
    const row = messageRow({
      id: "q01HKSTIMELINE00000000000AA",
      status: "delivered",
      created_at: at,
      submitted_at: at,
      delivered_at: at,
      done_at: at,
      connector: "sim-a",
      upstream_id: "sim-1",
      route_note: "adaptive: sim-a, best of 2 up",
    });
    const { events } = await messageHistory(db.store.db, row, noParts);
    expect(events.map((e) => e.event)).toEqual(["accepted", "routed", "submitted", "delivered"]);
    expect(events[1]!.detail).toBe("adaptive: sim-a, best of 2 up");
  });

  it("keeps the order of the times when they differ", async () => {
    const at = Date.parse("2026-12-01T10:00:00Z");
    const row = messageRow({
      id: "q01HKSTIMELINE00000000000AB",
      status: "delivered",
      created_at: at,
      submitted_at: at + 200,
      delivered_at: at + 5000,
      done_at: at + 5000,
      connector: "sim-a",
      route_note: "least_cost: sim-a, cheapest of 2 up",
    });
    const { events } = await messageHistory(db.store.db, row, noParts);
    expect(events.map((e) => [e.event, e.at - at])).toEqual([
      ["accepted", 0],
      ["routed", 200],
      ["submitted", 200],
      ["delivered", 5000],
    ]);
  });
});
