// Connector health as the operator pages show it: state, SMPP binds, results and the throughput
// worked out between two reads of the workers' counts.
import { useRef } from "react";
import { formatNumber, formatTime } from "../../format.js";
import type { Carrier, WorkerHealth } from "../../operator-types.js";
import { connectorRate, type Samples } from "../../throughput.js";
import { StatusBadge } from "../../ui.js";

/** Why a connector takes no traffic now (disabled here, or down as its workers report), if so: the router leaves it out. */
export function idleWhy(carrier: Pick<Carrier, "enabled" | "health"> | undefined): string | undefined {
  if (carrier === undefined) return undefined;
  if (!carrier.enabled) return "disabled";
  return carrier.health.state === "down" ? "down" : undefined;
}

export function useSamples(): Samples {
  return useRef<Samples>(new Map()).current;
}

function sum(workers: readonly WorkerHealth[], pick: (w: WorkerHealth) => number | undefined): number {
  return workers.reduce((total, worker) => total + (pick(worker) ?? 0), 0);
}

/** The cells of one connector's health row: state, binds, results, throughput, last error. */
export function HealthCells({
  connector,
  state,
  workers,
  samples,
  timeZone,
}: {
  connector: string;
  state: string;
  workers: readonly WorkerHealth[];
  samples: Samples;
  timeZone: string;
}) {
  const rate = connectorRate(samples, connector, workers);
  const withSessions = workers.filter((w) => w.sessions);
  const lastError = workers
    .map((w) => w.last_error)
    .filter((e): e is NonNullable<WorkerHealth["last_error"]> => Boolean(e))
    .sort((a, b) => b.at.localeCompare(a.at))[0];
  const reason = workers.find((w) => w.reason)?.reason;
  return (
    <>
      <td>
        <StatusBadge status={state} />
        {reason ? <span className="hint"> {reason}</span> : null}
      </td>
      <td>
        {withSessions.length > 0
          ? `${sum(withSessions, (w) => w.sessions?.bound)} of ${sum(withSessions, (w) => w.sessions?.total)} bound`
          : "—"}
      </td>
      <td>
        {formatNumber(sum(workers, (w) => w.results?.ok))} sent,{" "}
        {formatNumber(sum(workers, (w) => w.results?.retryable))} retried,{" "}
        {formatNumber(sum(workers, (w) => w.results?.failed))} failed
      </td>
      <td data-testid={`throughput-${connector}`}>
        {rate ? `${formatNumber(Math.round(rate.ok * 10) / 10)}/s` : "measuring…"}
        {rate && rate.failed > 0 ? ` (${formatNumber(Math.round(rate.failed * 10) / 10)}/s failing)` : ""}
      </td>
      <td className="text-cell">
        {lastError ? (
          <>
            {lastError.message} <code>{lastError.code}</code> {formatTime(lastError.at, timeZone)}
          </>
        ) : reason && state !== "up" ? (
          // No send has failed, but the connector cannot work: that is its last error.
          <>
            {reason} <span className="hint">(why it is {state}; no send has failed)</span>
          </>
        ) : (
          "none"
        )}
      </td>
    </>
  );
}

export function HealthHeads() {
  return (
    <>
      <th scope="col">Health</th>
      <th scope="col">Binds</th>
      <th scope="col">Results since start</th>
      <th scope="col">Throughput</th>
      <th scope="col">Last error</th>
    </>
  );
}
