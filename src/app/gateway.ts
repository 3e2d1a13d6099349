// Starts and stops a gateway process in one or more roles: `api` (HTTP) and `worker`
// (dispatcher, scheduler, webhook sender). `start` is both, in one process.
import pino, { type Logger } from "pino";
import { Authenticator } from "../auth/index.js";
import { type Clock, systemClock } from "../core/clock.js";
import { openStore, type Store } from "../store/store.js";
import type { Config } from "./config.js";
import type { AppContext } from "./context.js";
import { createMetrics } from "./metrics.js";
import { type App, buildServer } from "./server.js";
import { startWorkers } from "./workers.js";

export type Role = "api" | "worker";

export interface GatewayOptions {
  config: Config;
  roles: readonly Role[];
  clock?: Clock;
  logger?: Logger;
  /** An already open store (tests); otherwise one is opened from the config. */
  store?: Store;
}

export interface Gateway {
  ctx: AppContext;
  app?: App;
  /** http://host:port of the API role. */
  url?: string;
  stop(): Promise<void>;
}

export function createLogger(config: Pick<Config, "logLevel">): Logger {
  return pino({ level: config.logLevel, base: { service: "switchboard" } });
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config);
  const store = options.store ?? (await openStore(config.database, { sqliteSynchronous: config.sqliteSynchronous }));
  await store.migrate();
  const clock = options.clock ?? systemClock;
  const ctx: AppContext = {
    config,
    store,
    clock,
    logger,
    metrics: createMetrics(),
    authenticator: new Authenticator(store, clock, config),
  };

  let stopping = false;
  const stopWorkers = options.roles.includes("worker") ? await startWorkers(ctx) : async () => undefined;

  let app: App | undefined;
  let url: string | undefined;
  if (options.roles.includes("api")) {
    app = await buildServer(ctx, { isReady: () => !stopping });
    url = await app.listen({ port: config.port, host: config.host });
  }

  return {
    ctx,
    ...(app ? { app } : {}),
    ...(url ? { url } : {}),
    async stop() {
      if (stopping) return;
      stopping = true;
      await app?.close();
      await stopWorkers();
      ctx.authenticator.close();
      if (!options.store) await store.close();
    },
  };
}
