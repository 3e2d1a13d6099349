// One price card's rows (GET /admin/api/price-cards/{name}): channel, route, prefix, price and the
// time each applies from, a page at a time and narrowed by channel and prefix in the browser (a card
// has up to 200,000 rows, answered whole); for the roles that change prices, its rows replaced by a CSV file.
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { data } from "../../api.js";
import { formatNumber, formatTime, plural } from "../../format.js";
import type { PriceCard as Card, PriceCardRow } from "../../operator-types.js";
import { Link } from "../../router.js";
import { canDo, useSignedIn } from "../../session.js";
import { Busy, ErrorNotice, Field, Pager, PageTitle, useClientPages } from "../../ui.js";
import { DEFAULT_CARD } from "./account-pricing.js";
import { PriceCardImport } from "./price-card-import.js";

const CHANNELS = ["sms", "voice"] as const;

/** The rows on `channel` (all: "") whose prefix starts with `prefix` (a leading + dropped, as the API does). */
function narrowed(rows: readonly PriceCardRow[], channel: string, prefix: string): readonly PriceCardRow[] {
  const start = prefix.trim().replace(/^\+/, "");
  if (!channel && !start) return rows;
  return rows.filter((row) => (!channel || row.channel === channel) && row.prefix.startsWith(start));
}

export default function PriceCard({ params }: { params: Record<string, string> }) {
  const name = params.name ?? "";
  const session = useSignedIn();
  const card = useQuery({
    queryKey: ["operator", "price-card", name],
    queryFn: () => data<Card>(`/admin/api/price-cards/${encodeURIComponent(name)}`),
  });
  const [channel, setChannel] = useState("");
  const [prefix, setPrefix] = useState("");
  const rows = useMemo(() => narrowed(card.data?.rows ?? [], channel, prefix), [card.data, channel, prefix]);
  const pages = useClientPages(card.data ? rows : undefined, 100);
  const total = card.data?.rows.length ?? 0;
  const builtIn = card.data?.name === DEFAULT_CARD;
  return (
    <>
      <PageTitle>Price card {card.data?.name ?? name}</PageTitle>
      <p>
        Prices in credits per SMS segment or voice unit. A send is priced by the account's route code before{" "}
        <code>*</code>, then the longest prefix of the number, by the row in force at the time; a unit no row prices
        costs 1 credit. <Link to="/operator/price-cards">All price cards</Link>
      </p>
      <ErrorNotice error={card.error} />
      {card.isPending ? <Busy /> : null}
      {card.data && total === 0 ? (
        <p>{builtIn ? "The built-in card has no rows: 1 credit a unit." : "No rows: every unit at 1 credit."}</p>
      ) : null}
      {card.data && total > 0 ? (
        <>
          <form className="filters" aria-label="Narrow the rows" onSubmit={(event) => event.preventDefault()}>
            <Field label="Channel" id="card-channel">
              <select
                id="card-channel"
                value={channel}
                onChange={(event) => {
                  setChannel(event.target.value);
                  pages.setPage(1);
                }}
              >
                <option value="">Every channel</option>
                {CHANNELS.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Prefix starts with" id="card-prefix">
              <input
                id="card-prefix"
                inputMode="numeric"
                value={prefix}
                placeholder="9198"
                onChange={(event) => {
                  setPrefix(event.target.value);
                  pages.setPage(1);
                }}
              />
            </Field>
          </form>
          <p className="hint" data-testid="card-row-count" aria-live="polite">
            {rows.length === total
              ? plural(total, "row")
              : `${formatNumber(rows.length)} of ${plural(total, "row")} match`}
          </p>
          <div className="table-wrap">
            <table data-testid="price-card-rows">
              <caption>The rows of {card.data.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Channel</th>
                  <th scope="col">Route</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Price</th>
                  <th scope="col">Effective from</th>
                </tr>
              </thead>
              <tbody>
                {pages.rows.map((row) => (
                  <tr key={`${row.channel} ${row.route} ${row.prefix} ${row.effective_from ?? ""}`}>
                    <td>{row.channel}</td>
                    <td>{row.route}</td>
                    <td>{row.prefix === "*" ? "* (every number)" : row.prefix}</td>
                    <td>{formatNumber(row.price)}</td>
                    <td>{row.effective_from ? formatTime(row.effective_from, session.time_zone) : "always"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager meta={pages.meta} onPage={pages.setPage} />
        </>
      ) : null}
      {card.data && !builtIn && canDo(session, "staff_money") ? (
        <section aria-labelledby="replace-title">
          <h2 id="replace-title">Replace its rows</h2>
          <p className="hint">
            A CSV file as <code>switchboard prices import</code> reads it; every row of the card is replaced at once,
            and a bad line refuses the whole file.
          </p>
          <PriceCardImport card={card.data.name} replaces={() => total} />
        </section>
      ) : null}
    </>
  );
}
