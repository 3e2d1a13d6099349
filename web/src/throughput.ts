// Throughput from the workers' cumulative connector results: each worker writes its counts about
// every 5 s, so the rate is the change between two of its writes over the time between them. A
// worker that restarted (its counts went down) starts again from its new counts.
import type { WorkerHealth } from "./operator-types.js";

interface Sample {
  at: number;
  ok: number;
  failed: number;
  rate?: { ok: number; failed: number };
}

export type Samples = Map<string, Sample>;

/** Folds one read into `samples` and answers the connector's messages per second (accepted, refused). */
export function connectorRate(
  samples: Samples,
  connector: string,
  workers: readonly WorkerHealth[],
): { ok: number; failed: number } | undefined {
  let known = false;
  const total = { ok: 0, failed: 0 };
  for (const worker of workers) {
    const key = `${connector}|${worker.worker}`;
    const at = Date.parse(worker.updated_at);
    const ok = worker.results.ok;
    const failed = worker.results.failed + worker.results.retryable;
    const previous = samples.get(key);
    let sample: Sample = { at, ok, failed };
    if (previous && at === previous.at) sample = previous;
    else if (previous && at > previous.at && ok >= previous.ok && failed >= previous.failed) {
      const seconds = (at - previous.at) / 1000;
      sample.rate = { ok: (ok - previous.ok) / seconds, failed: (failed - previous.failed) / seconds };
    }
    samples.set(key, sample);
    if (sample.rate) {
      known = true;
      total.ok += sample.rate.ok;
      total.failed += sample.rate.failed;
    }
  }
  return known ? total : undefined;
}
