// A refusal whose client's address is gone (security audit 3: a client that reset mid-body left
// request.ip undefined, and RefusalLog.record threw "Cannot read properties of undefined (reading
// 'slice')"): it is stored under the address "unknown", and such refusals share one per-minute
// bucket, "unknown", as the callers of one address do; stored on both engines.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { createMetrics } from "../../../src/base/runtime/metrics.js";
import { insertRefusals, type NewRefusal, RefusalLog } from "../../../src/domain/refusals/index.js";
import { createTestDatabase, describeEachEngine } from "../../helpers/engines.js";

const CAP = 3;

describeEachEngine("a refusal without a client address", (engine) => {
  it("is stored under the address unknown, in one bucket of the per-minute cap", async () => {
    const db = await createTestDatabase(engine);
    try {
      const clock = new ManualClock(new Date("2026-12-01T10:00:00Z"));
      const written: NewRefusal[] = [];
      const log = new RefusalLog(
        {
          clock,
          metrics: createMetrics({ defaultMetrics: false }),
          logger: { warn: () => undefined },
          config: { refusalLogDays: 30, refusalLogPerAccountPerMinute: CAP },
        },
        async (rows) => {
          written.push(...rows);
          await insertRefusals(db.store, rows);
        },
      );
      const details = () => ({
        operation: "POST /api/v2/sms/send",
        recipients: ["9876543210"],
        httpStatus: 400,
        code: "invalid_request",
        answer: "400 invalid_request",
        reason: "The client closed the connection before its request arrived whole.",
        requestId: "r1",
      });
      for (let i = 0; i < CAP + 2; i++) log.record({ family: "v2", accountId: null, address: undefined }, details);
      // A caller whose address is known has its own bucket.
      log.record({ family: "v2", accountId: null, address: "10.0.0.9" }, details);
      log.recordLeftOut(
        { family: "v2", accountId: 1, address: undefined },
        {
          broadcastId: "1_20261201_000001",
          operation: "POST /api/v2/sms/bulk",
          httpStatus: 200,
          answer: "200",
          requestId: "r2",
          recipients: [{ recipient: "1", code: "dnd_blocked", reason: "DND" }],
        },
      );
      await log.flush();
      expect(written.map((row) => row.address)).toEqual([...Array(CAP).fill("unknown"), "10.0.0.9", "unknown"]);
      const stored = await db.store.db.selectFrom("refusals").select("address").execute();
      expect(stored.map((row) => row.address).sort()).toEqual(["10.0.0.9", ...Array(CAP + 1).fill("unknown")]);
    } finally {
      await db.drop();
    }
  });
});
