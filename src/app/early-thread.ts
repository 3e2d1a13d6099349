// The worker thread of a `start` process, started before the main thread loads the gateway.
// Loading the app's modules takes each thread most of a start (about 1.5–2 s of a 3.5 s start
// on a slow two-core machine): started after the main thread's modules and migrations, the
// worker thread loaded its own while the main thread waited. bin/switchboard.js calls
// startEarly() before it imports the CLI, so both threads load at once, one per core; the
// thread then waits for its configuration (threads.ts hands it over, or ends it when the
// gateway runs without it). This module imports nothing of the app but the settings table
// (which the gateway loads next anyway): it must load in an instant.
import { Worker } from "node:worker_threads";
import { SETTINGS } from "../base/runtime/settings.js";
import { holdYoungGeneration } from "../base/runtime/young-generation.js";

let early: Worker | undefined;

/** Whether `args` run `start` with two threads: SWITCHBOARD_THREADS, else the setting's default. */
export function earlyThreadWanted(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  threadsByDefault = SETTINGS.SWITCHBOARD_THREADS.default.raw(),
): boolean {
  if (args[0] !== "start" || args.includes("--help") || args.includes("-h")) return false;
  return (env.SWITCHBOARD_THREADS ?? threadsByDefault) === "2";
}

/** The commands that run a gateway until stopped. */
const SERVING = new Set(["start", "api", "worker"]);

/**
 * Starts the worker thread ahead when `args` run `start` with two threads. A gateway's young
 * generations stay small until it is under load (young-generation.ts; gateway.ts lets them grow).
 */
export function startEarly(args: readonly string[], env: NodeJS.ProcessEnv = process.env): void {
  if (!earlyThreadWanted(args, env)) {
    if (SERVING.has(args[0] ?? "")) holdYoungGeneration();
    return;
  }
  early = new Worker(new URL("./worker-thread.js", import.meta.url), { workerData: {} });
  // Once the thread runs: starting a worker thread sets V8's flags back to their defaults.
  early.once("online", holdYoungGeneration);
  // Until the gateway takes it, it keeps nothing alive: a start that fails exits as before.
  early.unref();
  // One that failed or ended before it is taken is not handed out (takeEarly): the gateway
  // starts a thread of its own, whose failure it reports as it always did.
  const started = early;
  started.on("error", () => undefined);
  started.once("exit", () => {
    if (early === started) early = undefined;
  });
}

/** The thread started ahead, if any, now the caller's (once). */
export function takeEarly(): Worker | undefined {
  const worker = early;
  early = undefined;
  worker?.ref();
  return worker;
}

/** Ends the thread started ahead when the gateway runs without it. */
export function discardEarly(): void {
  void early?.terminate();
  early = undefined;
}
