// The worker thread of a `start` process (see threads.ts): the worker role, and the Acceptor
// that commits the sends the main thread hands over, on a database connection of its own.
import { parentPort, workerData } from "node:worker_threads";
import { systemClock } from "../base/core/clock.js";
import type { Config } from "../base/runtime/config.js";
import { createLogger } from "../base/runtime/logging.js";
import { createMetrics } from "../base/runtime/metrics.js";
import { acquireWorkerLock } from "../base/store/sqlite-worker-lock.js";
import { openStore, storeOptions } from "../base/store/store.js";
import { localOutboxWriter } from "../channels/smpp-server/index.js";
import type { AcceptOutcome } from "../domain/messages/index.js";
import { insertRefusals } from "../domain/refusals/index.js";
import { createAcceptor, createContext, releaseAllLeases } from "./assemble.js";
import { type FromWorker, type SerializedError, serializeError, type ToWorker } from "./threads.js";
import { startWorkers } from "./workers.js";

const port = parentPort;
if (!port) throw new Error("worker-thread.js runs as a worker thread of a start process");
// Started ahead (early-thread.ts), the thread loads its modules first and then waits for its
// configuration, the first message; started by threads.ts directly, it has it from the start.
const config =
  (workerData as { config?: Config }).config ??
  (await new Promise<Config>((resolve) =>
    port.once("message", (message: ToWorker) => {
      if (message.type === "config") resolve(message.config);
    }),
  ));
const post = (message: FromWorker) => port.postMessage(message);

try {
  const logger = createLogger(config);
  const store = await openStore(config.database, storeOptions(config));
  const clock = systemClock;
  // Node's process metrics are the main thread's; this one adds its counters to them.
  const metrics = createMetrics({ defaultMetrics: false });
  const acceptor = createAcceptor(store, clock, metrics, logger);
  const ctx = await createContext({ config, store, clock, logger, metrics, acceptor, redis: undefined });
  let releaseLock: (() => void) | undefined;
  if (config.database.engine === "sqlite") {
    releaseLock = acquireWorkerLock(config.database.file);
    // The one dispatcher of this file: whatever it had claimed before a crash is free again.
    await releaseAllLeases(store);
  }
  const workers = await startWorkers(ctx);
  const smppOutbox = localOutboxWriter(store);

  // SWITCHBOARD_FAULT_WORKER_THREAD_EXIT (crash tests): this thread ends between a commit and
  // the answers it releases, the worst moment for it to die of a fault.
  const exitAfter = Number(process.env.SWITCHBOARD_FAULT_WORKER_THREAD_EXIT ?? 0);
  let settled = 0;
  let results: Array<{ id: number; outcome: AcceptOutcome } | { id: number; error: SerializedError }> = [];
  const reply = (result: (typeof results)[number]) => {
    results.push(result);
    // The sends of one commit group settle together: one message back for all of them.
    if (results.length === 1) {
      setImmediate(() => {
        const batch = results;
        results = [];
        settled += batch.length;
        if (exitAfter > 0 && settled >= exitAfter) process.exit(1);
        post({ type: "accepted", results: batch });
      });
    }
  };

  port.on("message", (message: ToWorker) => {
    switch (message.type) {
      case "accept":
        for (const { id, order } of message.orders) {
          acceptor.accept(order).then(
            (outcome) => reply({ id, outcome }),
            (error: unknown) => reply({ id, error: serializeError(error) }),
          );
        }
        break;
      case "metrics":
        void metrics.registry
          .getMetricsAsJSON()
          .then((snapshot) => post({ type: "metrics", id: message.id, snapshot: snapshot as never }));
        break;
      case "smpp-outbox":
        smppOutbox(message.write).then(
          (rows) => post({ type: "smpp-outbox", id: message.id, ...(rows ? { rows } : {}) }),
          (error: unknown) => post({ type: "smpp-outbox", id: message.id, error: serializeError(error) }),
        );
        break;
      case "refusals":
        insertRefusals(store, message.rows).then(
          () => post({ type: "refusals", id: message.id }),
          (error: unknown) => post({ type: "refusals", id: message.id, error: serializeError(error) }),
        );
        break;
      case "listening":
        if (config.email.trackingUrl === undefined) ctx.emailTracker.setBaseUrl(message.url);
        if (config.carrierCallbackUrl === undefined) workers.carriers.callbackBase = message.url;
        break;
      case "stop":
        void (async () => {
          await workers.stop();
          await ctx.whatsapp.close();
          ctx.authenticator.close();
          releaseLock?.();
          await store.close();
          post({ type: "stopped" });
          process.exit(0);
        })();
        break;
    }
  });
  post({ type: "ready" });
} catch (error) {
  post({ type: "start-failed", message: error instanceof Error ? error.message : String(error) });
}
