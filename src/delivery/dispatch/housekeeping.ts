// Periodic upkeep of the queue: releases scheduled messages when due, returns to the queue
// messages an earlier version's worker leased and did not finish (expired lease), re-asks the simulator for reports it lost in a
// crash, fails messages whose delivery report never came (expiry.ts), and forgets idempotency
// keys after a day, carrier message parts after a week or a month, login failures that no
// longer count, (MESSAGE_RETENTION_DAYS) retired messages and finished webhook deliveries, and
// (REFUSAL_LOG_DAYS) old refusals. On a PostgreSQL server without autovacuum it also keeps the planner's
// statistics of the tables that changed (store/postgres-statistics.ts).

import { RepeatedErrors } from "../../base/core/repeated-errors.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { analyzeChangedTables, serverKeepsStatistics } from "../../base/store/postgres-statistics.js";
import { pruneLoginFailures } from "../../domain/auth/index.js";
import {
  awaitingReport,
  pruneIdempotencyKeys,
  pruneRetiredMessages,
  type RetiredMessageData,
  releaseDueScheduled,
  requeueExpiredLeases,
} from "../../domain/messages/index.js";
import { pruneRefusals } from "../../domain/refusals/index.js";
import { pruneFinishedDeliveries } from "../../domain/webhooks/deliveries.js";
import type { WebhookOutbox } from "../../domain/webhooks/outbox.js";
import type { Dispatcher } from "./dispatcher.js";
import { expireUnreportedMessages } from "./expiry.js";
import type { SimulatorConnector } from "./simulator.js";

type Deps = Pick<Runtime, "config" | "store" | "clock" | "logger" | "metrics"> & { webhooks?: WebhookOutbox };

/** What housekeeping asks of the carriers (the carrier registry answers). */
export interface CarrierUpkeep {
  /** Whether a connector reports delivery; expiry skips those that do not. */
  reportsDelivery(connector: string): boolean;
  /** Forgets old carrier message parts. */
  pruneParts(now: number): Promise<unknown>;
}

const NO_CARRIERS: CarrierUpkeep = { reportsDelivery: () => true, pruneParts: async () => 0 };
const NOTHING_ELSE: RetiredMessageData = async () => undefined;

export interface Housekeeping {
  runOnce(): Promise<void>;
  /**
   * Resolves once `count` rounds of the timer that began after this call have ended (a test's
   * wait for housekeeping to have looked at the clock it set, instead of a fixed sleep).
   */
  afterRounds(count: number): Promise<void>;
  stop(): Promise<void>;
}

const STALE_GRACE_MS = 5_000;
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Rounds between two looks for expired messages. */
const EXPIRY_EVERY = 10;
/** Clock time between two prunes of stale login failures. */
const LOGIN_FAILURES_EVERY_MS = 60_000;
/** Clock time between two retention rounds, and the rows one removes of each kind (in batches). */
const RETENTION_EVERY_MS = 60_000;
const RETENTION_BATCH = 500;
const RETENTION_BATCHES_PER_ROUND = 20;
/** Rounds between two looks for tables whose statistics are stale (PostgreSQL without autovacuum). */
const STATISTICS_EVERY = 5;

export function startHousekeeping(
  deps: Deps,
  dispatcher: Dispatcher,
  simulator: SimulatorConnector | undefined,
  carriers: CarrierUpkeep = NO_CARRIERS,
  intervalMs = 1_000,
  /** What other folders keep of the messages retention removes (handed in by app/). */
  retiredData: RetiredMessageData = NOTHING_ELSE,
): Housekeeping {
  let running: Promise<void> | undefined;
  let rounds = 0;
  /** Rounds of the timer ended, and who waits for a number of them (afterRounds). */
  let ended = 0;
  let waiting: { from: number; count: number; resolve: () => void }[] = [];
  let loginFailuresPrunedAt = Number.NEGATIVE_INFINITY;
  let retainedAt = Number.NEGATIVE_INFINITY;
  let refusalsPrunedAt = Number.NEGATIVE_INFINITY;
  // Asked once: whether this server keeps statistics itself (PostgreSQL with autovacuum on).
  let keepsStatistics: Promise<boolean> | undefined;

  const runOnce = async () => {
    const now = deps.clock.now().getTime();
    const released = await releaseDueScheduled(deps.store, now);
    const requeued = await requeueExpiredLeases(deps.store, now);
    if (released + requeued > 0) {
      if (requeued > 0) deps.logger.warn({ requeued }, "requeued messages whose dispatch lease expired");
      dispatcher.wake();
    }
    if (simulator) {
      const stale = await awaitingReport(
        deps.store,
        simulator.name,
        now - simulator.maxLatencyMs - STALE_GRACE_MS,
        5000,
      );
      if (stale.length > 0) simulator.resend(stale);
    }
    if (rounds % EXPIRY_EVERY === 0)
      await expireUnreportedMessages(deps, (connector) => carriers.reportsDelivery(connector));
    if (rounds % 60 === 0) {
      // A client retries within minutes; a day keeps every realistic retry safe.
      await pruneIdempotencyKeys(deps.store.db, now - IDEMPOTENCY_TTL_MS);
      // Carrier message parts: a week after they were sent once their message is reported, else a month.
      await carriers.pruneParts(now);
    }
    const retentionDays = deps.config.messageRetentionDays;
    if (retentionDays > 0 && now - retainedAt >= RETENTION_EVERY_MS) {
      retainedAt = now;
      // Small batches, each its own transaction, so sends never wait long behind a prune.
      const cutoff = now - retentionDays * 86_400_000;
      let removed = 0;
      for (let i = 0; i < RETENTION_BATCHES_PER_ROUND; i++) {
        const messages = await pruneRetiredMessages(deps.store, cutoff, RETENTION_BATCH, retiredData);
        const deliveries = await pruneFinishedDeliveries(deps.store, cutoff, RETENTION_BATCH);
        removed += messages;
        if (messages < RETENTION_BATCH && deliveries < RETENTION_BATCH) break;
      }
      if (removed > 0) deps.logger.info({ removed, retention_days: retentionDays }, "removed retired messages");
    }
    const refusalDays = deps.config.refusalLogDays;
    if (refusalDays > 0 && now - refusalsPrunedAt >= RETENTION_EVERY_MS) {
      refusalsPrunedAt = now;
      // REFUSAL_LOG_DAYS: the log of refusals, in batches too (each its own transaction).
      const cutoff = now - refusalDays * 86_400_000;
      for (let i = 0; i < RETENTION_BATCHES_PER_ROUND; i++) {
        if ((await pruneRefusals(deps.store, cutoff, RETENTION_BATCH)) < RETENTION_BATCH) break;
      }
    }
    // By the clock, not by rounds: what is stale depends on the time the failures were counted at.
    if (now - loginFailuresPrunedAt >= LOGIN_FAILURES_EVERY_MS) {
      loginFailuresPrunedAt = now;
      await pruneLoginFailures(deps.store.db, deps.config, now);
    }
    if (deps.store.engine === "postgres" && rounds % STATISTICS_EVERY === 0) {
      keepsStatistics ??= serverKeepsStatistics(deps.store.db).catch((error: unknown) => {
        keepsStatistics = undefined; // asked again next time
        throw error;
      });
      if (!(await keepsStatistics)) {
        const analyzed = await analyzeChangedTables(deps.store.db);
        if (analyzed.length > 0) deps.logger.debug({ tables: analyzed }, "analyzed tables (autovacuum is off)");
      }
    }
    rounds++;
  };

  // The database away fails every round the same way: one line with the stack, then counts.
  const failures = new RepeatedErrors(deps.logger);
  const timer = setInterval(() => {
    if (running) return;
    running = runOnce()
      .catch((error: unknown) => failures.log("error", error, "housekeeping round failed"))
      .finally(() => {
        running = undefined;
        ended++;
        const done = waiting.filter((wait) => ended - wait.from >= wait.count);
        waiting = waiting.filter((wait) => ended - wait.from < wait.count);
        for (const wait of done) wait.resolve();
      });
  }, intervalMs);
  timer.unref();

  return {
    runOnce,
    afterRounds(count) {
      // A round under way began before this call: it does not count.
      const from = ended + (running ? 1 : 0);
      return new Promise((resolve) => waiting.push({ from, count, resolve }));
    },
    async stop() {
      clearInterval(timer);
      await running;
      failures.flush();
    },
  };
}
