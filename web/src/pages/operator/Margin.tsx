// Margin for the operator (GET /admin/api/analytics/margin): what the window's SMS and voice
// brought in (charges less refunds), what the carriers charge for them by their cost cards, and
// the difference, by account, connector or cost prefix; then the adaptive routes' connectors as
// scored now (GET /admin/api/routes/scores), with the share of traffic each gets (none while it is
// disabled or down) and why.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data, withQuery } from "../../api.js";
import { formatNumber } from "../../format.js";
import type { MarginAnalytics, RouteScore } from "../../operator-types.js";
import { useSignedIn } from "../../session.js";
import { Busy, ErrorNotice, Field, PageTitle } from "../../ui.js";

const GROUPS = [
  { value: "account", label: "Account" },
  { value: "connector", label: "Connector" },
  { value: "prefix", label: "Cost prefix" },
] as const;
type Group = (typeof GROUPS)[number]["value"];
type Request = { from?: string; to?: string; group_by: Group };

const percent = (rate: number | null) => (rate === null ? "–" : `${(rate * 100).toFixed(1)} %`);
const ms = (value: number | null) => (value === null ? "–" : `${formatNumber(Math.round(value))} ms`);
/** The plain count beside the weighted rate: what delivery analytics shows for the same receipts. */
const ofReceipts = (row: RouteScore) =>
  row.receipts === 0
    ? "–"
    : `${formatNumber(row.receipts_delivered)} of ${formatNumber(row.receipts)} (${percent(row.receipts_delivered / row.receipts)})`;
/** What share of the revenue the margin is. */
const marginShare = (margin: number, revenue: number) => (revenue === 0 ? "–" : percent(margin / revenue));

function MarginTable({ request }: { request: Request }) {
  const answer = useQuery({
    queryKey: ["operator", "margin", request],
    queryFn: () => data<MarginAnalytics>(withQuery("/admin/api/analytics/margin", request)),
  });
  const head = GROUPS.find((g) => g.value === request.group_by)?.label ?? "Group";
  const totals = answer.data?.totals;
  return (
    <section aria-labelledby="margin-title">
      <h2 id="margin-title">Revenue, cost and margin</h2>
      <ErrorNotice error={answer.error} />
      {answer.isPending ? <Busy /> : null}
      {answer.data?.rows.length === 0 ? <p>No messages in this window.</p> : null}
      {answer.data && totals && answer.data.rows.length > 0 ? (
        <div className="table-wrap">
          <table data-testid="margin-table">
            <caption>In credits, by {head.toLowerCase()}</caption>
            <thead>
              <tr>
                <th scope="col">{head}</th>
                <th scope="col">Messages</th>
                <th scope="col">Revenue</th>
                <th scope="col">Cost</th>
                <th scope="col">Margin</th>
                <th scope="col">Margin %</th>
                <th scope="col">Uncosted</th>
              </tr>
            </thead>
            <tbody>
              {answer.data.rows.map((row) => (
                <tr key={row.key ?? "none"}>
                  <th scope="row">{row.key ?? "none"}</th>
                  <td>{formatNumber(row.messages)}</td>
                  <td>{formatNumber(row.revenue)}</td>
                  <td>{formatNumber(row.cost)}</td>
                  <td>{formatNumber(row.margin)}</td>
                  <td>{marginShare(row.margin, row.revenue)}</td>
                  <td>{formatNumber(row.uncosted)}</td>
                </tr>
              ))}
            </tbody>
            {/* Labelled here: table-labels.ts labels body rows only, and a phone shows this row as a card too. */}
            <tfoot data-testid="margin-totals">
              <tr>
                <th scope="row" data-label="">
                  Total
                </th>
                <td data-label="Messages">{formatNumber(totals.messages)}</td>
                <td data-label="Revenue">{formatNumber(totals.revenue)}</td>
                <td data-label="Cost">{formatNumber(totals.cost)}</td>
                <td data-label="Margin">{formatNumber(totals.margin)}</td>
                <td data-label="Margin %">{marginShare(totals.margin, totals.revenue)}</td>
                <td data-label="" />
              </tr>
            </tfoot>
          </table>
        </div>
      ) : null}
      <p className="hint">
        Uncosted: messages sent through a connector whose cost card has no row for them; their cost counts as 0.
      </p>
    </section>
  );
}

function RouteScores() {
  const answer = useQuery({
    queryKey: ["operator", "route-scores"],
    queryFn: () => data<RouteScore[]>("/admin/api/routes/scores"),
  });
  // A connector disabled or down takes none of its route's traffic (the router leaves it out):
  // the API says why, and the others' shares are of what they carry.
  const shareOf = (row: RouteScore) => (row.idle ? `– (${row.idle})` : percent(row.share));
  return (
    <section aria-labelledby="scores-title">
      <h2 id="scores-title">Adaptive routes</h2>
      <ErrorNotice error={answer.error} />
      {answer.isPending ? <Busy /> : null}
      {answer.data?.length === 0 ? <p>No adaptive routes.</p> : null}
      {answer.data && answer.data.length > 0 ? (
        <div className="table-wrap">
          <table data-testid="route-scores">
            <caption>
              Each connector as scored now, and its share of the route's traffic. The score reads the delivered share
              weighted to recent receipts; beside it, the plain count of its last receipts.
            </caption>
            <thead>
              <tr>
                <th scope="col">Route</th>
                <th scope="col">Connector</th>
                <th scope="col">Score</th>
                <th scope="col">Share</th>
                <th scope="col">Delivered, weighted to recent</th>
                <th scope="col">Delivered of receipts</th>
                <th scope="col">Latency p50</th>
                <th scope="col">Refused</th>
                <th scope="col">Cost</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {answer.data.map((row) => (
                <tr key={`${row.route} ${row.connector}`}>
                  <th scope="row">{row.route}</th>
                  <td>{row.connector}</td>
                  <td>{row.score.toFixed(3)}</td>
                  <td>{shareOf(row)}</td>
                  <td>{percent(row.delivery_rate)}</td>
                  <td>{ofReceipts(row)}</td>
                  <td>{ms(row.latency_p50_ms)}</td>
                  <td>{percent(row.refusal_rate)}</td>
                  <td>{row.cost === null ? "–" : formatNumber(row.cost)}</td>
                  <td>{row.note}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

export default function Margin() {
  const session = useSignedIn();
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [groupBy, setGroupBy] = useState<Group>("account");
  const [request, setRequest] = useState<Request>({ group_by: "account" });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setRequest({ ...(from ? { from } : {}), ...(to ? { to } : {}), group_by: groupBy });
  };
  return (
    <>
      <PageTitle>Margin</PageTitle>
      <p className="hint">
        What customers were charged, what the carriers charge by their cost cards, and the difference; the last 30 days
        unless you pick dates ({session.time_zone}). A reseller's sub-account's messages count what the reseller was
        charged for them (the top of its tree), not the sub-account's own price.
      </p>
      <form onSubmit={apply} className="filters">
        <Field label="From (date)" id="margin-from">
          <input id="margin-from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </Field>
        <Field label="To (date, inclusive)" id="margin-to">
          <input id="margin-to" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </Field>
        <Field label="By" id="margin-group">
          <select id="margin-group" value={groupBy} onChange={(e) => setGroupBy(e.target.value as Group)}>
            {GROUPS.map((group) => (
              <option key={group.value} value={group.value}>
                {group.label}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit">Show</button>
      </form>
      <MarginTable request={request} />
      <RouteScores />
    </>
  );
}
