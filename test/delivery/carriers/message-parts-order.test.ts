// A message sent twice (its first send's outcome never recorded, the database away) keeps the
// parts of its later send, in whichever order the two writes land: the first send's write,
// retried until the database is back, once replaced the second's, whose receipts then matched
// nothing and left the message `submitted` (test/faults, PostgreSQL restarted).
import { afterAll, beforeAll, expect, it } from "vitest";
import { storeParts } from "../../../src/delivery/carriers/smpp/stored-parts.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

const T = 1_795_000_000_000;

describeEachEngine("the parts of a message sent twice", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db.drop();
  });

  const write = (sent: Parameters<typeof storeParts>[2]) => storeParts(db.store, "smsc", sent, T + 999_999);
  const parts = async (messageId: string) =>
    (
      await db.store.db
        .selectFrom("message_parts")
        .select(["upstream_id", "created_at"])
        .where("message_id", "=", messageId)
        .orderBy("part_index")
        .execute()
    ).map((row) => `${row.upstream_id}@${Number(row.created_at) - T}`);

  it("are the later send's when the earlier send's write lands last", async () => {
    await write([{ messageId: "late-1", upstreamIds: ["b1", "b2"], sentAt: T + 2_000 }]);
    await write([{ messageId: "late-1", upstreamIds: ["a1", "a2"], sentAt: T + 1_000 }]);
    expect(await parts("late-1")).toEqual(["b1@2000", "b2@2000"]);
  });

  it("replace the earlier send's when they land after them", async () => {
    await write([{ messageId: "late-2", upstreamIds: ["a1"], sentAt: T + 1_000 }]);
    await write([{ messageId: "late-2", upstreamIds: ["b1"], sentAt: T + 2_000 }]);
    expect(await parts("late-2")).toEqual(["b1@2000"]);
  });

  it("replace the earlier send's whole when only some of their keys are taken", async () => {
    // Not from one text (each send makes the same parts); a write must still not mix two sends.
    await write([{ messageId: "late-7", upstreamIds: ["a1"], sentAt: T + 1_000 }]);
    await write([{ messageId: "late-7", upstreamIds: ["b1", "b2", "b3"], sentAt: T + 2_000 }]);
    expect(await parts("late-7")).toEqual(["b1@2000", "b2@2000", "b3@2000"]);
    await write([{ messageId: "late-8", upstreamIds: ["b1"], sentAt: T + 2_000 }]);
    await write([{ messageId: "late-8", upstreamIds: ["a1", "a2"], sentAt: T + 1_000 }]);
    expect(await parts("late-8")).toEqual(["b1@2000"]);
  });

  it("are written for the other messages of a group in which one message's parts are newer", async () => {
    await write([{ messageId: "late-3", upstreamIds: ["b1"], sentAt: T + 2_000 }]);
    await write([
      { messageId: "late-3", upstreamIds: ["a1"], sentAt: T + 1_000 },
      { messageId: "late-4", upstreamIds: ["c1", "c2"], sentAt: T + 1_000 },
      // One message twice in one group: its later send.
      { messageId: "late-5", upstreamIds: ["e1"], sentAt: T + 3_000 },
      { messageId: "late-5", upstreamIds: ["d1"], sentAt: T + 1_000 },
    ]);
    expect(await parts("late-3")).toEqual(["b1@2000"]);
    expect(await parts("late-4")).toEqual(["c1@1000", "c2@1000"]);
    expect(await parts("late-5")).toEqual(["e1@3000"]);
    // Without a send time, the write's own.
    await write([{ messageId: "late-6", upstreamIds: ["f1"] }]);
    expect(await parts("late-6")).toEqual(["f1@999999"]);
  });
});
