// The background parts of the `worker` role. Each returns a stop function that waits for
// in-flight work to finish.
import type { AppContext } from "./context.js";

export type StopFn = () => Promise<void>;

export async function startWorkers(ctx: AppContext): Promise<StopFn> {
  const stops: StopFn[] = [];
  ctx.logger.debug({ workers: stops.length }, "workers started");
  return async () => {
    for (const stop of stops.reverse()) await stop();
  };
}
