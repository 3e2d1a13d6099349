// A chain's step records on both engines: a refused step's next step is claimed by whoever
// recorded the refusal, so a worker's pass cannot take it between that record and the caller's
// own send (a chain's start then answered with the next step `sending` and no message id).
import { expect, it } from "vitest";
import {
  decidedRunningChains,
  insertChain,
  recordSend,
  stepsOf,
  waitingOrStaleSteps,
} from "../../../src/channels/chains/rows.js";
import type { StepPlan } from "../../../src/channels/chains/step-fields.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, useTestGateway } from "../../helpers/gateway.js";

const step = (after: StepPlan["after"]): StepPlan => ({
  channel: "sms",
  recipient: "9876543210",
  fields: { sender_id: "SWBRD", message: "hello" },
  after,
});

describeEachEngine("fallback chains: step records", (engine) => {
  const gateway = useTestGateway(engine);

  it("claims the step after a refused one for the recorder; after a sent one, leaves it waiting", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const db = t.db.store.db;
    const now = Date.parse("2026-12-01T10:00:00Z");
    const lease = now + 60_000;
    const plans = [
      step(null),
      step({ on: "failed", withinMs: null }),
      step({ on: "not_delivered", withinMs: 300_000 }),
    ];
    await insertChain(
      db,
      { id: "c-rows-1", accountId: account.id, recipient: "9876543210", now, leaseUntil: lease },
      plans,
    );
    const [first, second] = await stepsOf(db, "c-rows-1");

    const refused = { error: { code: "invalid_sender_id", message: "no such sender" } };
    expect(await recordSend(db, first!, refused, now, lease)).toBe("next_claimed");
    const afterRefusal = await stepsOf(db, "c-rows-1");
    expect(afterRefusal.map((s) => [s.status, s.due_at === null ? null : Number(s.due_at)])).toEqual([
      ["refused", null],
      ["sending", lease],
      ["pending", null],
    ]);
    // The worker's pass finds nothing to take while the recorder holds the step.
    expect(await waitingOrStaleSteps(t.db.store, now + 1_000, 10)).toEqual([]);
    // A record of the same step again is not the caller's any more.
    expect(await recordSend(db, first!, refused, now, lease)).toBe(false);

    expect(await recordSend(db, second!, { messageId: "q-rows-1" }, now + 10, lease)).toBe("recorded");
    const afterSend = await stepsOf(db, "c-rows-1");
    expect(afterSend.map((s) => [s.status, s.message_id, s.due_at === null ? null : Number(s.due_at)])).toEqual([
      ["refused", null, null],
      ["sent", "q-rows-1", null],
      ["waiting", null, now + 10 + 300_000],
    ]);
  });

  it("pages the worker's pass through waiting and stale steps in (chain, position) order, with the step before each", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const db = t.db.store.db;
    const now = Date.parse("2026-12-01T11:00:00Z");
    // Three chains whose second step waits (its first sent), and one whose first step's lease ran out.
    for (const id of ["c-page-1", "c-page-2", "c-page-3"]) {
      await insertChain(db, { id, accountId: account.id, recipient: "9876543210", now, leaseUntil: now + 60_000 }, [
        step(null),
        step({ on: "failed", withinMs: null }),
      ]);
      const [first] = await stepsOf(db, id);
      expect(await recordSend(db, first!, { messageId: `q-${id}` }, now, now + 60_000)).toBe("recorded");
    }
    await insertChain(
      db,
      { id: "c-page-0", accountId: account.id, recipient: "9876543210", now, leaseUntil: now + 5 },
      [step(null)],
    );

    const seen: unknown[] = [];
    let after: { chain_id: string; position: number } | undefined;
    for (;;) {
      const page = await waitingOrStaleSteps(t.db.store, now + 1_000, 2, after);
      if (page.length === 0) break;
      // The file's other chains share the database.
      const ours = page.filter((s) => s.chain_id.startsWith("c-page-"));
      seen.push(
        ...ours.map((s) => [s.chain_id, Number(s.position), s.status, s.previous_status, s.previous_message_id]),
      );
      after = page.at(-1);
    }
    expect(seen).toEqual([
      ["c-page-0", 0, "sending", null, null],
      ["c-page-1", 1, "waiting", "sent", "q-c-page-1"],
      ["c-page-2", 1, "waiting", "sent", "q-c-page-2"],
      ["c-page-3", 1, "waiting", "sent", "q-c-page-3"],
    ]);
    // Every chain still has a step to decide.
    expect((await decidedRunningChains(t.db.store, 10)).filter((c) => c.id.startsWith("c-page-"))).toEqual([]);
  });
});
