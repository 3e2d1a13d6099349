// The account's overview: every wallet's balance, today's and the last 7 days' traffic per
// channel, and messages per minute over the last 24 hours (refreshed every minute). The traffic
// is shown to a role that reads messages; every role sees the balances.
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { data } from "../api.js";
import { TimeChart } from "../Chart.js";
import { formatNumber, formatTime, plural, walletName } from "../format.js";
import { Link } from "../router.js";
import { canDo, useSignedIn } from "../session.js";
import { type Balance, CHANNELS, type MessageSummary, type PerMinute, WALLETS } from "../types.js";
import { Busy, ErrorNotice, PageTitle } from "../ui.js";

function PerMinuteChart({ timeZone }: { timeZone: string }) {
  const perMinute = useQuery({
    queryKey: ["messages", "per-minute"],
    queryFn: () => data<PerMinute>("/api/v2/messages/per-minute?hours=24"),
    refetchInterval: 60_000,
  });
  const chart = useMemo(() => {
    if (!perMinute.data) return undefined;
    const from = Math.floor(Date.parse(perMinute.data.from) / 60_000);
    const to = Math.floor(Date.parse(perMinute.data.to) / 60_000);
    const count = Math.max(0, to - from);
    const times = Array.from({ length: count }, (_, i) => (from + i) * 60);
    const sent = new Array<number>(count).fill(0);
    const delivered = new Array<number>(count).fill(0);
    const failed = new Array<number>(count).fill(0);
    for (const minute of perMinute.data.minutes) {
      const i = Math.floor(Date.parse(minute.at) / 60_000) - from;
      if (i < 0 || i >= count) continue;
      sent[i] = minute.sent;
      delivered[i] = minute.delivered;
      failed[i] = minute.failed;
    }
    return {
      times,
      series: [
        { label: "Sent", values: sent, className: "sent", color: "--chart-sent" },
        { label: "Delivered", values: delivered, className: "delivered", color: "--chart-delivered" },
        { label: "Failed", values: failed, className: "failed", color: "--chart-failed" },
      ],
      total: perMinute.data.minutes.reduce((sum, m) => sum + m.sent, 0),
      peak: perMinute.data.minutes.reduce((max, m) => Math.max(max, m.sent), 0),
    };
  }, [perMinute.data]);

  if (perMinute.error) return <ErrorNotice error={perMinute.error} title="Messages per minute" />;
  if (!chart) return <Busy />;
  return (
    <>
      <TimeChart
        title="Messages per minute, last 24 hours"
        times={chart.times}
        series={chart.series}
        timeZone={timeZone}
      />
      <p className="hint" data-testid="per-minute-summary">
        {plural(chart.total, "message")} in the last 24 hours; busiest minute {formatNumber(chart.peak)}.
      </p>
    </>
  );
}

export function Overview() {
  const session = useSignedIn();
  const reads = canDo(session, "read");
  const balance = useQuery({
    queryKey: ["balance"],
    queryFn: () => data<Balance>("/api/v2/balance"),
    refetchInterval: 30_000,
  });
  const summary = useQuery({
    queryKey: ["messages", "summary"],
    queryFn: () => data<MessageSummary>("/api/v2/messages/summary"),
    refetchInterval: 30_000,
    enabled: reads,
  });

  return (
    <>
      <PageTitle>Overview</PageTitle>
      <section aria-labelledby="wallets-title">
        <h2 id="wallets-title">Balances</h2>
        <ErrorNotice error={balance.error} />
        {balance.data ? (
          <ul className="cards" aria-label="Wallets">
            {WALLETS.map((wallet) => (
              <li key={wallet} className="card" data-testid={`wallet-${wallet}`}>
                <span className="card-label">{walletName(wallet)}</span>
                <span className="card-value">{formatNumber(balance.data.wallets[wallet])}</span>
                <span className="card-unit">{balance.data.wallets[wallet] === 1 ? "credit" : "credits"}</span>
              </li>
            ))}
          </ul>
        ) : balance.isPending ? (
          <Busy />
        ) : null}
      </section>

      {reads ? null : (
        <p>
          {canDo(session, "money") ? (
            <>
              <Link to="/credits">Credits</Link>: the daily use, the ledger and its export.{" "}
            </>
          ) : null}
          Your role ({session.user_role}) does not read messages, so their traffic is not shown here.
        </p>
      )}
      {reads ? (
        <section aria-labelledby="traffic-title">
          <h2 id="traffic-title">Traffic</h2>
          <ErrorNotice error={summary.error} />
          {summary.data ? (
            <div className="table-wrap">
              <table>
                <caption>
                  Messages accepted today (since {formatTime(summary.data.today_from, session.time_zone)}) and in the
                  last 7 days, by channel
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Channel</th>
                    <th scope="col">Sent today</th>
                    <th scope="col">Delivered today</th>
                    <th scope="col">Failed today</th>
                    <th scope="col">Sent, 7 days</th>
                    <th scope="col">Delivered, 7 days</th>
                    <th scope="col">Failed, 7 days</th>
                  </tr>
                </thead>
                <tbody>
                  {CHANNELS.map((channel) => {
                    const row = summary.data.channels[channel];
                    return (
                      <tr key={channel} data-testid={`traffic-${channel}`}>
                        <th scope="row">{walletName(channel)}</th>
                        <td>{formatNumber(row.today.sent)}</td>
                        <td>{formatNumber(row.today.delivered)}</td>
                        <td>{formatNumber(row.today.failed)}</td>
                        <td>{formatNumber(row.last_7_days.sent)}</td>
                        <td>{formatNumber(row.last_7_days.delivered)}</td>
                        <td>{formatNumber(row.last_7_days.failed)}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          ) : summary.isPending ? (
            <Busy />
          ) : null}
        </section>
      ) : null}

      {reads ? (
        <section aria-labelledby="chart-title">
          <h2 id="chart-title">Last 24 hours</h2>
          <PerMinuteChart timeZone={session.time_zone} />
          <p>
            <Link to="/messages">See every message</Link>
            {canDo(session, "send") ? (
              <>
                {" "}
                · <Link to="/send">Send an SMS</Link>
              </>
            ) : null}
          </p>
        </section>
      ) : null}
    </>
  );
}
