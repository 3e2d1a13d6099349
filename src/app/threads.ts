// The two threads of a `start` process (SWITCHBOARD_THREADS=2, the default on two or more
// cores). The main thread serves HTTP: parsing, authentication, the SMS rules, answers. The
// worker thread (worker-thread.ts) runs the worker role — dispatcher, delivery reports, webhook
// signing and posting, housekeeping — and, on SQLite, the Acceptor: the group commit whose
// fsync would otherwise stop the HTTP event loop for milliseconds at a time. Each thread has its
// own database connection; signals cross threads (store.ts). Sends travel as plain SendOrders,
// those of one tick in one message each way; an answer is sent only after the worker thread's
// COMMIT, as in one thread. If the worker thread dies the process exits: a supervisor restarts
// it, and a restart recovers exactly as after kill -9 (test/dispatch/crash.test.ts).
import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import { GatewayError } from "../base/core/errors.js";
import type { Config } from "../base/runtime/config.js";
import type { MetricsSnapshot } from "../base/runtime/metrics.js";
import type { ClaimedRow, OutboxWrite } from "../channels/smpp-server/index.js";
import type { AcceptOutcome, AcceptService, SendOrder } from "../domain/messages/index.js";
import type { NewRefusal } from "../domain/refusals/index.js";
import { takeEarly } from "./early-thread.js";

/** What crosses from the main thread to the worker thread. */
export type ToWorker =
  | { type: "config"; config: Config }
  | { type: "accept"; orders: Array<{ id: number; order: SendOrder }> }
  | { type: "metrics"; id: number }
  | { type: "smpp-outbox"; id: number; write: OutboxWrite }
  | { type: "refusals"; id: number; rows: NewRefusal[] }
  | { type: "listening"; url: string }
  | { type: "stop" };

export type SerializedError =
  | {
      code: string;
      message: string;
      details?: Record<string, unknown>;
      upline?: GatewayError["upline"];
      item?: GatewayError["item"];
      about?: string;
    }
  | { message: string };

/** What crosses back. */
export type FromWorker =
  | { type: "ready" }
  | { type: "start-failed"; message: string }
  | {
      type: "accepted";
      results: Array<{ id: number; outcome: AcceptOutcome } | { id: number; error: SerializedError }>;
    }
  | { type: "metrics"; id: number; snapshot: MetricsSnapshot }
  | { type: "smpp-outbox"; id: number; rows?: ClaimedRow[]; error?: SerializedError }
  | { type: "refusals"; id: number; error?: SerializedError }
  | { type: "stopped" };

export interface WorkerThread {
  accept(order: SendOrder): Promise<AcceptOutcome>;
  metrics(): Promise<MetricsSnapshot>;
  /** A write of the SMPP server's deliver_sm pump, committed by the worker thread (see smpp-server/outbox-writes.ts). */
  smppOutbox(write: OutboxWrite): Promise<ClaimedRow[] | undefined>;
  /** A batch of the log of refusals, written by the worker thread (the process's one writer on SQLite). */
  refusals(rows: NewRefusal[]): Promise<void>;
  /** The URL the main thread serves (tracking links, carriers' callbacks). */
  listening(url: string): void;
  stop(): Promise<void>;
}

interface Waiting {
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
}

export async function startWorkerThread(options: { config: Config; logger: Logger }): Promise<WorkerThread> {
  // Started ahead by bin/switchboard.js (early-thread.ts) when it could be: its modules are
  // loaded, or loading, by now; it waits for its configuration.
  const early = takeEarly();
  const worker =
    early ?? new Worker(new URL("./worker-thread.js", import.meta.url), { workerData: { config: options.config } });
  if (early) worker.postMessage({ type: "config", config: options.config } satisfies ToWorker);
  const waiting = new Map<number, Waiting>();
  let nextId = 1;
  let outbox: Array<{ id: number; order: SendOrder }> = [];
  let stopping = false;
  let stopped: (() => void) | undefined;

  let onMessage: (message: FromWorker) => void = () => undefined;
  let onError: (error: Error) => void = () => undefined;
  let onExit: (code: number) => void = () => undefined;
  await new Promise<void>((resolve, reject) => {
    onMessage = (message) => {
      if (message.type === "ready") resolve();
      else if (message.type === "start-failed") reject(new Error(message.message));
    };
    onError = reject;
    onExit = (code) => reject(new Error(`the worker thread exited with ${code} while starting`));
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
  });
  // Only ours: Worker's own listeners keep its message port running.
  worker.off("message", onMessage).off("error", onError).off("exit", onExit);

  worker.on("message", (message: FromWorker) => {
    if (message.type === "accepted") {
      for (const result of message.results) {
        const entry = waiting.get(result.id);
        waiting.delete(result.id);
        if (!entry) continue;
        if ("outcome" in result) entry.resolve(result.outcome as never);
        else entry.reject(deserializeError(result.error));
      }
    } else if (message.type === "metrics") {
      const entry = waiting.get(message.id);
      waiting.delete(message.id);
      entry?.resolve(message.snapshot as never);
    } else if (message.type === "refusals") {
      const entry = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error) entry?.reject(deserializeError(message.error));
      else entry?.resolve(undefined as never);
    } else if (message.type === "smpp-outbox") {
      const entry = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error) entry?.reject(deserializeError(message.error));
      else entry?.resolve(message.rows as never);
    } else if (message.type === "stopped") {
      stopped?.();
    }
  });
  worker.on("error", (error) => {
    options.logger.fatal({ err: error }, "the worker thread failed");
  });
  worker.on("exit", (code) => {
    for (const entry of waiting.values()) entry.reject(new Error("the worker thread ended"));
    waiting.clear();
    if (stopping) return;
    // Nothing answered was lost (answers follow commits); what was in flight is not answered.
    // Exiting lets a supervisor restart the whole gateway, which recovers as after kill -9.
    process.stderr.write(`switchboard: the worker thread ended (exit code ${code}); stopping\n`);
    process.exit(70);
  });

  const flush = () => {
    const orders = outbox;
    outbox = [];
    worker.postMessage({ type: "accept", orders } satisfies ToWorker);
  };

  return {
    accept(order) {
      return new Promise<AcceptOutcome>((resolve, reject) => {
        if (stopping) return reject(new Error("the gateway is stopping"));
        const id = nextId++;
        waiting.set(id, { resolve: resolve as (value: never) => void, reject });
        outbox.push({ id, order });
        // Every send read in this turn of the event loop goes over in one message.
        if (outbox.length === 1) setImmediate(flush);
      });
    },
    metrics() {
      return new Promise<MetricsSnapshot>((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve: resolve as (value: never) => void, reject });
        worker.postMessage({ type: "metrics", id } satisfies ToWorker);
      });
    },
    smppOutbox(write) {
      return new Promise<ClaimedRow[] | undefined>((resolve, reject) => {
        if (stopping) return reject(new Error("the gateway is stopping"));
        const id = nextId++;
        waiting.set(id, { resolve: resolve as (value: never) => void, reject });
        worker.postMessage({ type: "smpp-outbox", id, write } satisfies ToWorker);
      });
    },
    refusals(rows) {
      return new Promise<void>((resolve, reject) => {
        if (stopping) return reject(new Error("the gateway is stopping"));
        const id = nextId++;
        waiting.set(id, { resolve: resolve as (value: never) => void, reject });
        worker.postMessage({ type: "refusals", id, rows } satisfies ToWorker);
      });
    },
    listening(url) {
      worker.postMessage({ type: "listening", url } satisfies ToWorker);
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      if (outbox.length > 0) flush();
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      const done = new Promise<void>((resolve) => {
        stopped = resolve;
        void exited.then(resolve);
      });
      worker.postMessage({ type: "stop" } satisfies ToWorker);
      await done;
      // The thread ends itself right after "stopped"; terminating it at once would cut short what
      // node does at a thread's exit (a --cpu-prof profile is written then). Only if it does not.
      const timer = setTimeout(() => void worker.terminate(), 2_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The Acceptor of the main thread when the worker thread commits on SQLite: every send goes to
 * the worker thread's Acceptor, the process's one writer of sends (a SendOrder is data, so any
 * family's order crosses as it is).
 */
export function threadAcceptor(thread: Promise<WorkerThread>): AcceptService {
  return { accept: async (order) => (await thread).accept(order) };
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof GatewayError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      // Which level of a reseller tree was short (decision 0158): the log of refusals keeps it.
      ...(error.upline ? { upline: error.upline } : {}),
      // Which message of an XML document, and which input (v2's error.field): GatewayError's marks.
      ...(error.item ? { item: error.item } : {}),
      ...(error.about ? { about: error.about } : {}),
    };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}

export function deserializeError(error: SerializedError): Error {
  if (!("code" in error)) return new Error(error.message);
  const gatewayError = new GatewayError(error.code as GatewayError["code"], error.message, error.details);
  if (error.upline) gatewayError.upline = error.upline;
  if (error.item) gatewayError.item = error.item;
  if (error.about) gatewayError.about = error.about;
  return gatewayError;
}
