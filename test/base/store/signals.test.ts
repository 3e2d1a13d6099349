import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

const CHANNELS = ["queued", "reports", "webhooks", "carriers", "whatsapp", "email"];

describeEachEngine("wake-up signals", (engine) => {
  let db: TestDatabase;
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    process.on("warning", onWarning);
  });
  afterAll(async () => {
    process.off("warning", onWarning);
    await db.drop();
  });

  // The workers subscribe to their channels in one tick; on PostgreSQL that is one LISTEN each on
  // a single client, which must not overlap (pg warns today and refuses it from pg 9 on).
  it("subscribes to many channels at once without overlapping queries, and each gets its notifications", async () => {
    const received = new Map<string, string[]>();
    const stops = CHANNELS.map((channel) =>
      db.store.signals.listen(channel, (payload) => received.set(channel, [...(received.get(channel) ?? []), payload])),
    );
    const deadline = Date.now() + 5_000;
    // A LISTEN is in place once a notification comes back; notify until every channel has one.
    while (CHANNELS.some((channel) => !received.get(channel)?.length) && Date.now() < deadline) {
      await Promise.all(CHANNELS.map((channel) => db.store.signals.notify(channel, channel)));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const stop of stops) stop();
    for (const channel of CHANNELS) expect(received.get(channel)?.[0], channel).toBe(channel);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([]);
  });
});
