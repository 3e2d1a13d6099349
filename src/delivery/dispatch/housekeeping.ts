// Periodic upkeep of the queue: releases scheduled messages when due, returns to the queue
// messages an earlier version's worker leased and did not finish (expired lease), re-asks the simulator for reports it lost in a
// crash, fails messages whose delivery report never came (expiry.ts), and forgets idempotency
// keys after a day, carrier message parts after a week or a month, and login failures that no
// longer count. On a PostgreSQL server without autovacuum it also keeps the planner's
// statistics of the tables that changed (store/postgres-statistics.ts).

import type { Runtime } from "../../base/runtime/runtime.js";
import { analyzeChangedTables, serverKeepsStatistics } from "../../base/store/postgres-statistics.js";
import { pruneLoginFailures } from "../../domain/auth/index.js";
import {
  awaitingReport,
  pruneIdempotencyKeys,
  releaseDueScheduled,
  requeueExpiredLeases,
} from "../../domain/messages/index.js";
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

export interface Housekeeping {
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

const STALE_GRACE_MS = 5_000;
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Rounds between two looks for expired messages. */
const EXPIRY_EVERY = 10;
/** Clock time between two prunes of stale login failures. */
const LOGIN_FAILURES_EVERY_MS = 60_000;
/** Rounds between two looks for tables whose statistics are stale (PostgreSQL without autovacuum). */
const STATISTICS_EVERY = 5;

export function startHousekeeping(
  deps: Deps,
  dispatcher: Dispatcher,
  simulator: SimulatorConnector | undefined,
  carriers: CarrierUpkeep = NO_CARRIERS,
  intervalMs = 1_000,
): Housekeeping {
  let running: Promise<void> | undefined;
  let rounds = 0;
  let loginFailuresPrunedAt = Number.NEGATIVE_INFINITY;
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
        deps.store.db,
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

  const timer = setInterval(() => {
    if (running) return;
    running = runOnce()
      .catch((error: unknown) => deps.logger.error({ err: error }, "housekeeping round failed"))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();

  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
