// A gateway in one process: opens the store, builds the AppContext, serves HTTP and runs the roles it
// is given (api, worker), with the worker thread of a `start`; stop() ends them in order.
import type { Logger } from "pino";
import { type Clock, systemClock } from "../base/core/clock.js";
import { stagingDirectory, sweepStaging } from "../base/core/staging.js";
import type { Config } from "../base/runtime/config.js";
import { createLogger } from "../base/runtime/logging.js";
import { createMetrics } from "../base/runtime/metrics.js";
import { releaseYoungGenerationUnderLoad } from "../base/runtime/young-generation.js";
import { acquireWorkerLock } from "../base/store/sqlite-worker-lock.js";
import { openStore, type Store, storeOptions } from "../base/store/store.js";
import { SmppServer } from "../channels/smpp-server/index.js";
import { applyCarriersFile } from "../delivery/carriers/config-file.js";
import { dropStoppedImports } from "../domain/accounts/index.js";
import { closeRateLimitRedis, connectRateLimitRedis } from "../domain/auth/index.js";
import { recordPrefixDigits } from "../domain/messages/index.js";
import { createAcceptor, createContext, releaseAllLeases } from "./assemble.js";
import { registerBacklogGauges } from "./backlog-metrics.js";
import { type BootstrapCredentials, bootstrapIfEmpty, hasAccounts } from "./bootstrap.js";
import type { AppContext } from "./context.js";
import { discardEarly } from "./early-thread.js";
import { type Heartbeat, startHeartbeat } from "./heartbeat.js";
import { listenFailure } from "./listen-failure.js";
import { type App, buildServer } from "./server.js";
import { startWarnings } from "./start-warnings.js";
import { startWorkerThread, threadAcceptor, type WorkerThread } from "./threads.js";
import { packageVersion } from "./version.js";
import { startWorkers, type Workers } from "./workers.js";

export type Role = "api" | "worker";

export interface GatewayOptions {
  config: Config;
  roles: readonly Role[];
  clock?: Clock;
  logger?: Logger;
  /** An already open store (tests); otherwise one is opened from the config. */
  store?: Store;
  /** Prefix of the rate-limit counters in Redis (tests sharing one Redis use their own). */
  rateLimitKeyPrefix?: string;
  /** Seed an empty database with the operator and demo accounts before serving requests. */
  bootstrap?: boolean;
  /** Tests: fail an answer that its route's response schema would change (see answer-check.ts). */
  checkAnswers?: boolean;
  /** Tests: the built console's directory, instead of dist/web. */
  consoleDir?: string;
  /** Tests: false builds the OpenAPI document at its first request, not at start (server.ts). */
  openApiAtStart?: boolean;
  /** Tests: compile every route's schemas at start, not at their first use (server.ts). */
  schemasAtStart?: boolean;
}

export interface Gateway {
  ctx: AppContext;
  workers?: Workers;
  app: App;
  /** http://host:port this process serves (the APIs, or only the operations endpoints for a worker). */
  url: string;
  /** Credentials created by the first start on an empty database. */
  bootstrapped?: BootstrapCredentials;
  /** The SMPP server (api role, SMPP_SERVER_PORT or SMPP_SERVER_TLS_PORT set). */
  smpp?: SmppServer;
  stop(): Promise<void>;
  /** What stop() is waiting for: "" before it starts, then http, workers, connections, done. */
  stopStage(): string;
}

export { createLogger } from "../base/runtime/logging.js";

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { config } = options;
  if (config.database.engine === "sqlite" && options.roles.includes("worker") && !options.roles.includes("api")) {
    // With SQLite the single dispatcher claims without leases (see messages/transitions.ts).
    throw new Error(
      "The worker role on its own needs PostgreSQL (DATABASE_URL=postgres://…). With SQLite run `switchboard start`, which is API and worker in one process.",
    );
  }
  const logger = options.logger ?? createLogger(config);
  // Uploads' staging files that a process killed mid-upload left (kill -9, a crash).
  const swept = await sweepStaging();
  if (swept > 0)
    logger.warn({ removed: swept, directory: stagingDirectory() }, "removed staging files left by a stopped process");
  const store = options.store ?? (await openStore(config.database, storeOptions(config)));
  await store.migrate();
  // A large SQLite DND import that a stopped process was writing beside the registry.
  const stoppedImports = await dropStoppedImports(store);
  if (stoppedImports > 0)
    logger.warn({ dropped: stoppedImports }, "dropped a DND import a stopped process left unfinished");
  const clock = options.clock ?? systemClock;
  await recordPrefixDigits(store.db, config.analyticsPrefixDigits, clock.now().getTime());
  const metrics = createMetrics();
  registerBacklogGauges(metrics.registry, { store, clock, logger });
  if (config.carriersFile) {
    const applied = await applyCarriersFile({ store, clock }, config.carriersFile);
    logger.info({ file: config.carriersFile, ...applied }, "carriers file applied");
  }
  // `start` on a machine with two cores: the worker role (and on SQLite the commits of accepted
  // sends) runs in a thread of its own, so fsyncs, dispatch and webhook signing never hold up
  // the event loop that reads and answers requests (see threads.ts). It loads and starts while
  // this thread builds its server; sends wait for it.
  const threadStarting =
    !options.store &&
    config.threads > 1 &&
    !(config.database.engine === "sqlite" && config.database.file === ":memory:") &&
    options.roles.includes("api") &&
    options.roles.includes("worker")
      ? startWorkerThread({ config, logger })
      : undefined;
  // Started ahead for a gateway that runs without it (an in-memory database): ended.
  if (!threadStarting) discardEarly();
  // An unhandled rejection before it is awaited below would end the process without a word.
  threadStarting?.catch(() => undefined);
  if (threadStarting) metrics.peers.push(async () => (await threadStarting).metrics());
  const acceptor =
    threadStarting && store.engine === "sqlite"
      ? threadAcceptor(threadStarting)
      : createAcceptor(store, clock, metrics, logger);
  const redis = config.redisUrl ? await connectRateLimitRedis(config.redisUrl, logger) : undefined;
  const ctx = await createContext({
    config,
    store,
    clock,
    logger,
    metrics,
    acceptor,
    redis,
    rateLimitKeyPrefix: options.rateLimitKeyPrefix,
    // On SQLite the worker thread is the one writer: the refusals' batches go there too.
    refusalWriter:
      threadStarting && store.engine === "sqlite" ? async (rows) => (await threadStarting).refusals(rows) : undefined,
  });

  for (const line of startWarnings(config, options.roles)) logger.warn(line);

  let stopping = false;
  let workers: Workers | undefined;
  let releaseLock: (() => void) | undefined;
  if (options.roles.includes("worker") && !threadStarting) {
    if (config.database.engine === "sqlite" && config.database.file !== ":memory:") {
      releaseLock = acquireWorkerLock(config.database.file);
    }
    if (store.engine === "sqlite") {
      // SQLite runs one worker process: whatever it had claimed before a crash is free again.
      await releaseAllLeases(store);
    }
    workers = await startWorkers(ctx);
  }

  // A worker serves only /healthz, /readyz and /metrics, so it can be probed and scraped too.
  const app = await buildServer(ctx, {
    isReady: () => !stopping,
    apis: options.roles.includes("api"),
    checkAnswers: options.checkAnswers === true,
    ...(options.openApiAtStart === false ? { openApiAtStart: false } : {}),
    ...(options.schemasAtStart ? { schemasAtStart: true } : {}),
    ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
  });
  const smppConfig = config.smppServer;
  const smpp =
    options.roles.includes("api") && (smppConfig.port !== 0 || smppConfig.tlsPort !== 0)
      ? new SmppServer({
          ...ctx,
          config,
          // On SQLite the worker thread is the one writer: the pump's writes go there too.
          ...(threadStarting && store.engine === "sqlite"
            ? { outboxWriter: async (write) => (await threadStarting).smppOutbox(write) }
            : {}),
        })
      : undefined;
  let thread: WorkerThread | undefined;
  try {
    thread = await threadStarting;
  } catch (error) {
    await app.close();
    throw error;
  }
  let stage = "";
  let heartbeat: Heartbeat | undefined;
  let stopWatchingLoad: () => void = () => undefined;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    stopWatchingLoad();
    // SMPP clients are asked to unbind (each answers, or the response time-out passes).
    stage = "smpp: unbinding clients";
    await smpp?.stop();
    // New connections are refused at once; requests in flight are answered.
    stage = "http: requests in flight";
    await app.close();
    // What the log of refusals still holds is written while its writer is there.
    await ctx.refusals.flush();
    // Each worker finishes what it holds: the dispatcher's batch, webhook posts, reports.
    stage = "workers: work in hand";
    await thread?.stop();
    await workers?.stop();
    stage = "connections";
    await heartbeat?.stop();
    await ctx.whatsapp.close();
    releaseLock?.();
    ctx.authenticator.close();
    if (redis) await closeRateLimitRedis(redis);
    if (!options.store) await store.close();
    stage = "done";
  };
  let url: string;
  try {
    url = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const seeded = await hasAccounts(store).catch(() => false);
    await stop();
    throw listenFailure(error, config, seeded);
  }
  try {
    await smpp?.start();
  } catch (error) {
    const seeded = await hasAccounts(store).catch(() => false);
    await stop();
    const tls = (error as { port?: number }).port === smppConfig.tlsPort;
    throw listenFailure(
      error,
      { host: config.host, port: tls ? smppConfig.tlsPort : smppConfig.port },
      seeded,
      tls ? "SMPP_SERVER_TLS_PORT" : "SMPP_SERVER_PORT",
    );
  }
  // Seeded only once listening: credentials printed by a start that then failed would be lost.
  const bootstrapped = options.bootstrap ? await bootstrapIfEmpty(store, clock, config.voice) : undefined;
  // Without a public URL, tracking links name the address this server actually listens on.
  const role = options.roles.length > 1 ? "start" : (options.roles[0] ?? "start");
  heartbeat = startHeartbeat(ctx, { role, url, version: packageVersion() });
  if (config.email.trackingUrl === undefined) ctx.emailTracker.setBaseUrl(url);
  if (config.carrierCallbackUrl === undefined && workers) workers.carriers.callbackBase = url;
  thread?.listening(url);
  // Held small through start-up (early-thread.ts), the threads' young generations grow under load.
  stopWatchingLoad = releaseYoungGenerationUnderLoad();

  return {
    ctx,
    ...(workers ? { workers } : {}),
    app,
    url,
    ...(bootstrapped ? { bootstrapped } : {}),
    ...(smpp ? { smpp } : {}),
    stop,
    stopStage: () => stage,
  };
}
