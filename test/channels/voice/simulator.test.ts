// The simulated call provider, the default connector: each magic callee's outcome through the
// real pipeline, the outcome mix a seed replays, and calls a crashed process was walking.
import { expect, it, vi } from "vitest";
import { createLogger } from "../../../src/app/gateway.js";
import type { OnDemandInterval } from "../../../src/base/core/on-demand-interval.js";
import type { MessageRow } from "../../../src/base/store/schema.js";
import type { Store } from "../../../src/base/store/store.js";
import type { CallStatusUpdate } from "../../../src/channels/voice/call-status.js";
import { VoiceSimulatorConnector } from "../../../src/channels/voice/simulator.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { useTestGateway } from "../../helpers/gateway.js";
import {
  buildVoiceAccount,
  callParams,
  expectBroadcastId,
  FAST_VOICE_SIMULATOR,
  placeCall,
  voiceBalance,
  waitForCall,
} from "./helpers.js";

const FINAL = ["delivered", "failed"];

describeEachEngine("simulated call provider", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_VOICE_SIMULATOR });

  it("gives each magic callee its outcome; only the refused create is refunded", async () => {
    const t = gateway();
    const account = await buildVoiceAccount(t, { voice: 20 });
    const cases = [
      // callee, status, error code, call status, refunded
      ["9876500000", "delivered", undefined, "completed", false],
      ["9876500001", "failed", "failed", "failed", false],
      ["9876500002", "failed", "rejected", null, true],
      ["9876500003", "delivered", undefined, "completed", false],
      ["9876500004", "failed", "busy", "busy", false],
      ["9876500006", "failed", "no-answer", "no-answer", false],
    ] as const;
    const ids = [];
    for (const [to] of cases)
      ids.push(expectBroadcastId(await placeCall(t, "GET", callParams(account, { to })), account));
    for (const [index, [to, status, code, callStatus, refunded]] of cases.entries()) {
      const report = await waitForCall(t, account, ids[index]!, (r) => FINAL.includes(r.status), 8_000);
      expect(report.status, to).toBe(status);
      expect(report.error?.code, to).toBe(code);
      expect(report.call.status, to).toBe(callStatus);
      expect(report.sent_time === null, to).toBe(refunded);
      if (status === "delivered") expect(report.call.duration_seconds, to).toBe(2);
    }
    // Six calls of one unit, the refused one given back.
    expect(await voiceBalance(t, account)).toBe(15);
    const throttled = await t.db.store.db
      .selectFrom("messages")
      .select("attempts")
      .where("broadcast_id", "=", ids[3]!)
      .executeTakeFirstOrThrow();
    expect(throttled.attempts).toBe(2);
  });
});

describeEachEngine("simulated call provider on its own", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });

  function simulator(failureRate: number, deliver: (updates: CallStatusUpdate[]) => void, lostCheckMs?: number) {
    const t = gateway();
    return new VoiceSimulatorConnector(
      { seed: 42, latencyMs: 5, failureRate, now: Date.now, ...(lostCheckMs ? { lostCheckMs } : {}) },
      {
        apply: async (updates) => deliver([...updates]),
        start: () => undefined,
        stop: async () => undefined,
      },
      { store: t.db.store, logger: createLogger({ logLevel: "silent" }) },
    );
  }

  /** Callees ending 1000 and up: no magic outcome. */
  const row = (n: number, recipient = `98765${11_000 + n}`) =>
    ({ id: `q01SIMMIX${String(n).padStart(17, "0")}`, recipient, attempts: 1, meta: null }) as MessageRow;

  it("walks each call through the statuses a provider reports, in order", async () => {
    const updates: CallStatusUpdate[] = [];
    const voice = simulator(0, (batch) => updates.push(...batch));
    await voice.start();
    try {
      const calls = { completed: "9876511000", failed: "9876510001", busy: "9876510004", "no-answer": "9876510006" };
      const results = await voice.submit(Object.values(calls).map((to, n) => row(n, to)));
      await until(
        () => updates.filter((u) => ["completed", "failed", "busy", "no-answer"].includes(u.status)).length === 4,
      );
      const statusesOf = (index: number) => {
        const result = results[index]!;
        return updates.filter((u) => result.ok && u.callSid === result.upstreamId).map((u) => u.status);
      };
      expect([0, 1, 2, 3].map(statusesOf)).toEqual([
        ["initiated", "ringing", "in-progress", "completed"],
        ["initiated", "failed"],
        ["initiated", "busy"],
        ["initiated", "ringing", "no-answer"],
      ]);
      for (const [index, update] of updates.entries()) {
        if (index > 0 && update.callSid === updates[index - 1]!.callSid) {
          expect(update.at).toBeGreaterThanOrEqual(updates[index - 1]!.at);
        }
      }
    } finally {
      await voice.stop();
    }
  });

  it("ends a share failureRate of calls busy, unanswered or failed, the same way for the same seed", async () => {
    const finals: CallStatusUpdate[] = [];
    const voice = simulator(0.3, (updates) =>
      finals.push(
        ...updates.filter((u) => u.status !== "initiated" && u.status !== "ringing" && u.status !== "in-progress"),
      ),
    );
    await voice.start();
    try {
      const messages = Array.from({ length: 400 }, (_, n) => row(n));
      const results = await voice.submit(messages);
      expect(results.every((r) => r.ok)).toBe(true);
      await until(() => finals.length === 400);
      const count = (status: string) => finals.filter((u) => u.status === status).length;
      expect(count("completed")).toBeGreaterThan(240);
      expect(count("completed")).toBeLessThan(320);
      expect(count("no-answer")).toBeGreaterThan(count("busy"));
      expect(count("busy")).toBeGreaterThan(count("failed"));
      // The same seed and ids give the same outcomes.
      const again: CallStatusUpdate[] = [];
      const replay = simulator(0.3, (updates) =>
        again.push(...updates.filter((u) => finals.some((f) => f.callSid === u.callSid && f.status === u.status))),
      );
      await replay.start();
      await replay.submit(messages);
      await until(() => again.length === 400);
      await replay.stop();
    } finally {
      await voice.stop();
    }
  });

  it("walks again a submitted call that no simulator is walking (its process died)", async () => {
    const t = gateway();
    const account = await buildVoiceAccount(t);
    const now = Date.now();
    await t.db.store.db
      .insertInto("messages")
      .values({
        ...row(1),
        id: "q01SIMLOST0000000000000001",
        account_id: account.id,
        channel: "voice",
        broadcast_id: `${account.id}_20261122_999999`,
        sender: "+918047110000",
        body: "Lost call",
        encoding: null,
        segments: 1,
        flash: 0,
        route: "voice",
        lane: 0,
        wallet: "voice",
        credits: 1000,
        status: "submitted",
        due_at: now - 60_000,
        lease_until: null,
        connector: "voice-simulator",
        upstream_id: "SIMCALOST",
        error_code: null,
        error_message: null,
        dlt_entity_id: null,
        dlt_template_id: null,
        meta: JSON.stringify({ units: 1, speech_seconds: 3 }),
        template_id: null,
        job_id: null,
        created_at: now - 60_000,
        submitted_at: now - 60_000,
        done_at: null,
      })
      .execute();
    const updates: CallStatusUpdate[] = [];
    const voice = simulator(0, (batch) => updates.push(...batch), 50);
    await voice.start();
    try {
      await until(() => updates.some((u) => u.status === "completed"));
      // The ingester here only records, so the row stays submitted and a check after the walk
      // ends walks it again (a slow machine saw a second "initiated"): the first walk is the one
      // under test.
      const walked = updates.filter((u) => u.callSid === "SIMCALOST");
      expect(walked.slice(0, 4).map((u) => u.status)).toEqual(["initiated", "ringing", "in-progress", "completed"]);
      expect(walked[3]?.durationSeconds).toBe(3);
    } finally {
      await voice.stop();
    }
  });
});

// Issue 43: the 10 ms release timer is armed only while steps are planned, so an idle gateway
// sleeps. Node's timers and clock are faked: time moves only when the test moves it.
it("arms its release timer only while a call has steps to come, and again for statuses a failed store gave back", async () => {
  vi.useFakeTimers();
  try {
    const updates: CallStatusUpdate[] = [];
    let failNext = false;
    const voice = new VoiceSimulatorConnector(
      { seed: 42, latencyMs: 5, failureRate: 0, now: Date.now, lostCheckMs: 3_600_000 },
      {
        apply: async (batch) => {
          if (failNext) {
            failNext = false;
            throw new Error("database is locked");
          }
          updates.push(...batch);
        },
        start: () => undefined,
        stop: async () => undefined,
      },
      { store: {} as Store, logger: createLogger({ logLevel: "silent" }) },
    );
    // Its own release timer, not a count of every timer: the suite's workers run files one after
    // another in one process (isolate: false), where another file's late timers would count too.
    const armed = () => (voice as unknown as { releases: OnDemandInterval }).releases.armed;
    await voice.start();
    // The lost-call check's timer only.
    expect(armed()).toBe(false);
    const [first] = await voice.submit([
      { id: "q01SIMTIMER00000000000001", recipient: "9876511000", attempts: 1, meta: null } as MessageRow,
    ]);
    expect(armed()).toBe(true);
    await vi.advanceTimersByTimeAsync(50);
    expect(updates.filter((u) => first?.ok && u.callSid === first.upstreamId).map((u) => u.status)).toEqual([
      "initiated",
      "ringing",
      "in-progress",
      "completed",
    ]);
    expect(armed()).toBe(false);

    // A call placed once the timer slept, whose first statuses the store refuses once.
    failNext = true;
    const [second] = await voice.submit([
      { id: "q01SIMTIMER00000000000002", recipient: "9876510004", attempts: 1, meta: null } as MessageRow,
    ]);
    expect(armed()).toBe(true);
    await vi.advanceTimersByTimeAsync(300);
    expect(updates.filter((u) => second?.ok && u.callSid === second.upstreamId).map((u) => u.status)).toEqual([
      "initiated",
      "busy",
    ]);
    expect(armed()).toBe(false);
    await voice.stop();
    expect(armed()).toBe(false);
  } finally {
    vi.useRealTimers();
  }
});
