// A call status whose every compare-and-set on the call's meta loses to another callback is not
// in the meta, so it must not be counted as recorded: it is left to be applied again.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createAccountWithKey } from "../../src/admin/index.js";
import { systemClock } from "../../src/core/clock.js";
import { createTestDatabase, type TestDatabase } from "../helpers/engines.js";
import { messageRow } from "../helpers/message-row.js";

const lose = vi.hoisted(() => ({ races: 0 }));
vi.mock("../../src/messages/index.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/messages/index.js")>();
  return {
    ...original,
    // Another callback changes the meta first: the compare-and-set matches nothing.
    replaceMessageMeta: async (...args: Parameters<typeof original.replaceMessageMeta>) => {
      if (lose.races > 0) {
        lose.races--;
        return false;
      }
      return original.replaceMessageMeta(...args);
    },
  };
});

const { applyCallStatuses } = await import("../../src/voice/call-status.js");

describe("a call status that keeps losing its compare-and-set", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("is not counted as recorded until its meta is written", async () => {
    const { store } = db;
    const account = await createAccountWithKey(
      { store, clock: systemClock },
      { username: "cas", password: "cas-password-1", credits: { voice: 10 }, rateLimit: 0 },
    );
    const id = "q01TESTCAS0000000000000001";
    await store.db
      .insertInto("messages")
      .values(
        messageRow({
          id,
          account_id: account.id,
          channel: "voice",
          route: "voice",
          wallet: "voice",
          status: "submitted",
          connector: "sim",
          upstream_id: "CA1",
          submitted_at: 1,
        }),
      )
      .execute();
    const update = { connector: "sim", callSid: "CA1", status: "ringing" as const, at: 2 };
    const meta = async () =>
      (await store.db.selectFrom("messages").select("meta").where("id", "=", id).executeTakeFirstOrThrow()).meta;

    lose.races = 5;
    const lost = await store.transaction((trx) => applyCallStatuses(store, trx, [update]));
    expect(lost.found.size).toBe(0);
    expect(await meta()).toBeNull();

    lose.races = 4; // the fifth attempt wins
    const won = await store.transaction((trx) => applyCallStatuses(store, trx, [update]));
    expect(won.found.size).toBe(1);
    expect(JSON.parse((await meta()) ?? "{}")).toMatchObject({ call_status: "ringing" });
  });
});
