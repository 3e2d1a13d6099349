// A message's timeline on both engines: events of the same instant are listed in the order they
// happen, the route chosen before the submit (routed, then submitted), then the carrier's
// receipt; and the order holds whatever the instants are (a later event is never listed first).
// A report that came while the carrier was still answering the submit is shown at the submit.
import { afterAll, beforeAll, expect, it } from "vitest";
import { deliveryReport } from "../../../src/channels/sms/report-format.js";
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

  it("shows a report that came before its submit was recorded at the submit, never before it", async () => {
    const at = Date.parse("2026-12-01T10:00:00Z");
    const row = messageRow({
      id: "q01HKSTIMELINE00000000000AC",
      status: "delivered",
      created_at: at,
      submitted_at: at + 2000,
      delivered_at: null,
      // The carrier's receipt, dated while it was still answering the submit.
      done_at: at + 500,
      connector: "sim-a",
      upstream_id: "sim-3",
    });
    const { events } = await messageHistory(db.store.db, row, noParts);
    expect(events.map((e) => [e.event, e.at])).toEqual([
      ["accepted", at],
      ["submitted", at + 2000],
      ["delivered", at + 2000],
    ]);
    const report = deliveryReport(row);
    expect(report.delivery_time).toBe(report.sent_time);
    expect(report.delivery_time).toBe("2026-12-01T10:00:02Z");
    const failed = await messageHistory(db.store.db, { ...row, status: "failed", error_code: "UNDELIV" }, noParts);
    expect(failed.events.at(-1)).toMatchObject({ event: "failed", at: at + 2000 });
  });
});
