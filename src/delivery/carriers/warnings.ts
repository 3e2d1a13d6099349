// What an operator is told about carriers, once per episode: a connector going down or coming
// back (its health state changing), and a carrier refusing messages, once per kind of refusal
// until it has been quiet for a while, however many messages it refuses meanwhile.
import type { Logger } from "pino";
import { EpisodeLog } from "../../base/core/episodes.js";
import { outcomeOf, type SubmitResult } from "../dispatch/index.js";
import type { ConnectorHealth } from "./health.js";

/** A kind of refusal not seen for this long is warned about again. */
const REFUSALS_QUIET_MS = 5 * 60_000;

export class CarrierWarnings {
  private readonly refusals: EpisodeLog;
  private readonly states = new Map<string, string>();

  constructor(private readonly logger: Pick<Logger, "warn" | "info">) {
    this.refusals = new EpisodeLog(logger, { quietMs: REFUSALS_QUIET_MS });
  }

  results(connector: string, results: readonly SubmitResult[]): void {
    for (const result of results) {
      if (result.ok) continue;
      const outcome = outcomeOf(result);
      if (outcome === "deferred") continue;
      this.refusals.occurred(
        `${connector}\n${result.code}`,
        `carrier ${connector} refused a message: ${result.code} (${result.message}); the same refusal is logged again after ${REFUSALS_QUIET_MS / 60_000} minutes without one`,
        { connector, code: result.code, error: result.message, retried: outcome === "retryable" },
      );
    }
  }

  health(snapshots: readonly ConnectorHealth[]): void {
    for (const health of snapshots) {
      const before = this.states.get(health.connector);
      this.states.set(health.connector, health.state);
      if (before === health.state || (before === undefined && health.state === "up")) continue;
      const fields = { connector: health.connector, state: health.state, reason: health.reason };
      if (health.state === "up") this.logger.info(fields, `carrier ${health.connector} is up again`);
      else
        this.logger.warn(
          fields,
          `carrier ${health.connector} is ${health.state}: ${health.reason ?? "no reason given"}`,
        );
    }
  }
}
