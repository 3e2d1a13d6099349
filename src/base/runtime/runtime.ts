// The runtime every feature may take: configuration, the store, the clock, the logger and the
// metrics. A feature declares what else it needs beside it (its own Deps type); app/ assembles them.
import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import type { Store } from "../store/store.js";
import type { Config } from "./config.js";
import type { Metrics } from "./metrics.js";

export interface Runtime {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
}
