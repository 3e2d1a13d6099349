// The system view: messages waiting per channel and lane, the webhook backlog, every connector's
// health and throughput, and the running processes, read from GET /admin/api/system every 2 s.
import { useQuery } from "@tanstack/react-query";
import { data } from "../../api.js";
import { formatNumber, formatTime } from "../../format.js";
import type { SystemView } from "../../operator-types.js";
import { useSignedIn } from "../../session.js";
import { Busy, ErrorNotice, Pager, PageTitle, useClientPages } from "../../ui.js";
import { HealthCells, HealthHeads, useSamples } from "./health.js";

const LANES: Record<number, string> = { 0: "fast (transactional, one-to-one)", 1: "bulk" };

export default function System() {
  const session = useSignedIn();
  const samples = useSamples();
  const system = useQuery({
    queryKey: ["operator", "system"],
    queryFn: () => data<SystemView>("/admin/api/system"),
    refetchInterval: 2_000,
  });
  const connectors = useClientPages(system.data?.connectors, 25);
  const processes = useClientPages(system.data?.processes, 25);
  const tz = session.time_zone;
  if (system.error && !system.data) {
    return (
      <>
        <PageTitle>System</PageTitle>
        <ErrorNotice error={system.error} />
      </>
    );
  }
  if (!system.data) return <Busy />;
  const s = system.data;
  const queued = s.queues.reduce((sum, q) => sum + q.queued, 0);
  return (
    <>
      <PageTitle>System</PageTitle>
      <p className="hint" data-testid="system-updated">
        Read at {formatTime(s.at, tz)}; refreshed every 2 s.
      </p>
      <ErrorNotice error={system.error} title="The last read failed" />
      <ul className="cards">
        <li className="card">
          <span className="card-label">Queued for carriers</span>
          <span className="card-value" data-testid="system-queued">
            {formatNumber(queued)}
          </span>
        </li>
        <li className="card">
          <span className="card-label">Webhooks waiting</span>
          <span className="card-value" data-testid="system-webhooks">
            {formatNumber(s.webhooks.pending)}
          </span>
          <span className="card-unit">most overdue {formatNumber(s.webhooks.overdue_seconds)} s</span>
        </li>
        <li className="card">
          <span className="card-label">Processes</span>
          <span className="card-value">{s.processes.length}</span>
        </li>
      </ul>

      <section aria-labelledby="queues-title">
        <h2 id="queues-title">Queues</h2>
        {s.queues.length === 0 ? (
          <p>Nothing waits for a carrier.</p>
        ) : (
          <div className="table-wrap">
            <table data-testid="system-queues">
              <caption>Messages queued for dispatch (each counted up to {formatNumber(s.counted_up_to)})</caption>
              <thead>
                <tr>
                  <th scope="col">Channel</th>
                  <th scope="col">Lane</th>
                  <th scope="col">Queued</th>
                  <th scope="col">Held: no connector up</th>
                </tr>
              </thead>
              <tbody>
                {s.queues.map((q) => (
                  <tr key={`${q.channel}-${q.lane}`}>
                    <td>{q.channel}</td>
                    <td>{LANES[q.lane] ?? q.lane}</td>
                    <td>{formatNumber(q.queued)}</td>
                    <td>{formatNumber(q.held)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="connectors-title">
        <h2 id="connectors-title">Connectors</h2>
        {s.connectors.length === 0 ? <p>No worker reported a connector in the last 30 s.</p> : null}
        {s.connectors.length > 0 ? (
          <div className="table-wrap">
            <table data-testid="system-connectors">
              <caption>As the running workers report them</caption>
              <thead>
                <tr>
                  <th scope="col">Connector</th>
                  <HealthHeads />
                </tr>
              </thead>
              <tbody>
                {connectors.rows.map((c) => (
                  <tr key={c.connector}>
                    <th scope="row">{c.connector}</th>
                    <HealthCells
                      connector={c.connector}
                      state={c.state}
                      workers={c.workers}
                      samples={samples}
                      timeZone={tz}
                    />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        <Pager meta={connectors.meta} onPage={connectors.setPage} />
      </section>

      <section aria-labelledby="processes-title">
        <h2 id="processes-title">Processes</h2>
        <div className="table-wrap">
          <table>
            <caption>Processes whose heartbeat is at most 30 s old</caption>
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Host and pid</th>
                <th scope="col">Version</th>
                <th scope="col">Started</th>
                <th scope="col">Last heartbeat</th>
              </tr>
            </thead>
            <tbody>
              {processes.rows.map((p) => (
                <tr key={`${p.host}-${p.pid}-${p.started_at}`}>
                  <td>{p.role}</td>
                  <td>
                    {p.host} {p.pid}
                  </td>
                  <td>{p.version}</td>
                  <td>{formatTime(p.started_at, tz)}</td>
                  <td>{formatTime(p.last_beat_at, tz)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager meta={processes.meta} onPage={processes.setPage} />
      </section>
    </>
  );
}
