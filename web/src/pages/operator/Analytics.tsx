// Delivery analytics for the operator (GET /admin/api/analytics/delivery): volume and delivery
// rate per day, then by connector, account, route and error code, each a picture read at a
// glance (bars in HTML, the day charts with uPlot, a point a day) with its numbers in a table under it.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useMemo, useState } from "react";
import { data, withQuery } from "../../api.js";
import { TimeChart } from "../../Chart.js";
import { formatDay, formatNumber } from "../../format.js";
import type { DeliveryAnalytics, DeliveryAnalyticsRow } from "../../operator-types.js";
import { useSignedIn } from "../../session.js";
import { Busy, ErrorNotice, Field, PageTitle } from "../../ui.js";

type Window = { from?: string; to?: string };

const DAY_SECONDS = 86_400;

const percent = (rate: number | null) => (rate === null ? "–" : `${(rate * 100).toFixed(1)} %`);
const ms = (value: number | null) => (value === null ? "–" : `${formatNumber(Math.round(value))} ms`);

function useAnalytics(groupBy: string, window: Window) {
  return useQuery({
    queryKey: ["operator", "analytics", groupBy, window],
    queryFn: () =>
      data<DeliveryAnalytics>(withQuery("/admin/api/analytics/delivery", { group_by: groupBy, ...window })),
  });
}

function NumbersTable({
  caption,
  head,
  rows,
  label,
  testId,
}: {
  caption: string;
  head: string;
  rows: DeliveryAnalyticsRow[];
  label: (row: DeliveryAnalyticsRow) => string;
  testId: string;
}) {
  return (
    <div className="table-wrap">
      <table data-testid={testId}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{head}</th>
            <th scope="col">Sent</th>
            <th scope="col">Delivered</th>
            <th scope="col">Failed</th>
            <th scope="col">Pending</th>
            <th scope="col">Rejected</th>
            <th scope="col">Delivery rate</th>
            <th scope="col">Latency p50</th>
            <th scope="col">Latency p95</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key ?? "none"}>
              <th scope="row">{label(row)}</th>
              <td>{formatNumber(row.sent)}</td>
              <td>{formatNumber(row.delivered)}</td>
              <td>{formatNumber(row.failed)}</td>
              <td>{formatNumber(row.pending)}</td>
              <td>{formatNumber(row.rejected)}</td>
              <td>{percent(row.delivery_rate)}</td>
              <td>{ms(row.latency_p50_ms)}</td>
              <td>{ms(row.latency_p95_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Horizontal bars of sent messages: the delivered share green, the failed share red, the rest grey.
 * HTML, not a stretched SVG: the labels keep their font's shape at any width.
 */
function Bars({ rows, label }: { rows: DeliveryAnalyticsRow[]; label: (row: DeliveryAnalyticsRow) => string }) {
  const top = rows.slice(0, 12);
  const most = Math.max(1, ...top.map((row) => row.sent));
  const share = (count: number) => `${(count / most) * 100}%`;
  return (
    <ul className="bars" aria-hidden="true" data-testid="bars">
      {top.map((row) => (
        <li key={row.key ?? "none"}>
          <span className="bar-label" title={label(row)}>
            {label(row)}
          </span>
          <span className="bar-track">
            <span className="delivered" style={{ width: share(row.delivered) }} />
            <span className="failed" style={{ width: share(row.failed) }} />
            <span className="other" style={{ width: share(Math.max(0, row.sent - row.delivered - row.failed)) }} />
          </span>
        </li>
      ))}
    </ul>
  );
}

function Breakdown({
  title,
  groupBy,
  head,
  window,
  label = (row) => row.key ?? "none",
}: {
  title: string;
  groupBy: string;
  head: string;
  window: Window;
  label?: (row: DeliveryAnalyticsRow) => string;
}) {
  const answer = useAnalytics(groupBy, window);
  const id = `analytics-${groupBy}`;
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <ErrorNotice error={answer.error} />
      {answer.isPending ? <Busy /> : null}
      {answer.data?.rows.length === 0 ? <p>No messages in this window.</p> : null}
      {answer.data && answer.data.rows.length > 0 ? (
        <figure className="chart">
          <figcaption>Sent (grey), delivered (green) and failed (red), most sent first</figcaption>
          <Bars rows={answer.data.rows} label={label} />
          <NumbersTable caption={title} head={head} rows={answer.data.rows} label={label} testId={id} />
        </figure>
      ) : null}
    </section>
  );
}

function Days({ window, timeZone }: { window: Window; timeZone: string }) {
  const answer = useAnalytics("day", window);
  const charts = useMemo(() => {
    const rows = answer.data?.rows ?? [];
    const times = rows.map((row) => Date.parse(row.key ?? "") / 1000);
    return {
      times,
      volume: [
        { label: "Sent", values: rows.map((r) => r.sent), className: "sent", color: "--chart-sent" },
        {
          label: "Delivered",
          values: rows.map((r) => r.delivered),
          className: "delivered",
          color: "--chart-delivered",
        },
        { label: "Failed", values: rows.map((r) => r.failed), className: "failed", color: "--chart-failed" },
      ],
      rate: [
        {
          label: "Delivery rate %",
          values: rows.map((r) => (r.delivery_rate === null ? 0 : Math.round(r.delivery_rate * 1000) / 10)),
          className: "rate",
          color: "--chart-delivered",
        },
      ],
    };
  }, [answer.data]);
  return (
    <section aria-labelledby="analytics-day-title">
      <h2 id="analytics-day-title">Per day</h2>
      <ErrorNotice error={answer.error} />
      {answer.isPending ? <Busy /> : null}
      {answer.data && answer.data.rows.length > 0 ? (
        <>
          <TimeChart
            title="Messages per day"
            times={charts.times}
            series={charts.volume}
            timeZone={timeZone}
            step={DAY_SECONDS}
          />
          <TimeChart
            title="Delivery rate per day"
            times={charts.times}
            series={charts.rate}
            timeZone={timeZone}
            step={DAY_SECONDS}
            yMax={105}
          />
          <NumbersTable
            caption="Per day"
            head="Day"
            rows={answer.data.rows}
            label={(row) => formatDay(row.key ?? "", timeZone)}
            testId="analytics-day"
          />
        </>
      ) : null}
    </section>
  );
}

export default function Analytics() {
  const session = useSignedIn();
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [window, setWindow] = useState<Window>({});
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setWindow({ ...(from ? { from } : {}), ...(to ? { to } : {}) });
  };
  return (
    <>
      <PageTitle>Delivery analytics</PageTitle>
      <p className="hint">
        Messages by the day they were accepted and what became of them; the last 30 days unless you pick dates (
        {session.time_zone}).
      </p>
      <form onSubmit={apply} className="filters">
        <Field label="From (date)" id="analytics-from">
          <input id="analytics-from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </Field>
        <Field label="To (date, inclusive)" id="analytics-to">
          <input id="analytics-to" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </Field>
        <button type="submit">Show</button>
      </form>
      <Days window={window} timeZone={session.time_zone} />
      <Breakdown title="By connector" groupBy="connector" head="Connector" window={window} />
      <Breakdown title="By account" groupBy="account" head="Account" window={window} />
      <Breakdown title="By error code or reason" groupBy="error_code" head="Error code or reason" window={window} />
      <Breakdown title="By route" groupBy="route" head="Route" window={window} />
    </>
  );
}
