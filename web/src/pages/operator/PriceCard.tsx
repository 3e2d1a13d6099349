// One price card's rows (GET /admin/api/price-cards/{name}): channel, route, prefix, price and the
// time each applies from, a page at a time from the server, narrowed there by channel and by the
// start of the prefix (typing waits for a pause before it asks); the whole card as a CSV download
// (…/export, the file the import reads); for the roles that change prices, its rows replaced by a CSV file.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { request, withQuery } from "../../api.js";
import { exportHref } from "../../exports.js";
import { formatNumber, formatTime, plural } from "../../format.js";
import type { PriceCardPage } from "../../operator-types.js";
import { Link } from "../../router.js";
import { canDo, useSignedIn } from "../../session.js";
import { Busy, ErrorNotice, Field, Pager, PageTitle } from "../../ui.js";
import { DEFAULT_CARD } from "./account-pricing.js";
import { PriceCardImport } from "./price-card-import.js";

const CHANNELS = ["sms", "voice"] as const;
const PER_PAGE = 100;
/** A prefix filter the API takes: up to 15 digits (none: every row). */
const PREFIX_START = /^\d{0,15}$/;
/** How long the prefix field waits after a keystroke before it asks the server. */
const TYPING_PAUSE_MS = 300;

/** `value` once it has not changed for `ms`. */
function useSettled(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export default function PriceCard({ params }: { params: Record<string, string> }) {
  const name = params.name ?? "";
  const session = useSignedIn();
  const [channel, setChannel] = useState("");
  const [prefixField, setPrefixField] = useState("");
  const typed = prefixField.trim().replace(/^\+/, "");
  // Digits only, as the API takes them: anything else narrows nothing and says so beside the field.
  const typedOk = PREFIX_START.test(typed);
  const settled = useSettled(typedOk ? typed : "", TYPING_PAUSE_MS);
  const prefix = typedOk ? settled : "";
  // The page chosen under the filters of now: other filters start at their first page.
  const filters = `${channel} ${prefix}`;
  const [at, setAt] = useState({ filters, page: 1 });
  const page = at.filters === filters ? at.page : 1;
  const setPage = (chosen: number) => setAt({ filters, page: chosen });
  const path = `/admin/api/price-cards/${encodeURIComponent(name)}`;
  const card = useQuery({
    queryKey: ["operator", "price-card", name, { channel, prefix, page }],
    queryFn: () => request<PriceCardPage>(withQuery(path, { page, per_page: PER_PAGE, channel, prefix })),
    placeholderData: keepPreviousData,
  });
  const answer = card.data;
  const total = answer?.data.row_count ?? 0;
  const matching = answer?.meta.total ?? 0;
  const builtIn = answer?.data.name === DEFAULT_CARD;
  return (
    <>
      <PageTitle>Price card {answer?.data.name ?? name}</PageTitle>
      <p>
        Prices in credits per SMS segment or voice unit. A send is priced by the account's route code before{" "}
        <code>*</code>, then the longest prefix of the number, by the row in force at the time; a unit no row prices
        costs 1 credit. <Link to="/operator/price-cards">All price cards</Link>
      </p>
      <ErrorNotice error={card.error} />
      {card.isPending ? <Busy /> : null}
      {answer && total === 0 ? (
        <p>{builtIn ? "The built-in card has no rows: 1 credit a unit." : "No rows: every unit at 1 credit."}</p>
      ) : null}
      {answer && total > 0 ? (
        <>
          <form className="filters" aria-label="Narrow the rows" onSubmit={(event) => event.preventDefault()}>
            <Field label="Channel" id="card-channel">
              <select id="card-channel" value={channel} onChange={(event) => setChannel(event.target.value)}>
                <option value="">Every channel</option>
                {CHANNELS.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </Field>
            <Field
              label="Prefix starts with"
              id="card-prefix"
              hint={typedOk ? undefined : "Digits only, up to 15 (a leading + is dropped)."}
            >
              <input
                id="card-prefix"
                aria-invalid={!typedOk}
                {...(typedOk ? {} : { "aria-describedby": "card-prefix-hint" })}
                inputMode="numeric"
                value={prefixField}
                placeholder="9198"
                onChange={(event) => setPrefixField(event.target.value)}
              />
            </Field>
          </form>
          <p className="hint" data-testid="card-row-count" aria-live="polite">
            {matching === total ? plural(total, "row") : `${formatNumber(matching)} of ${plural(total, "row")} match`}
          </p>
          <div className="table-wrap">
            <table data-testid="price-card-rows">
              <caption>The rows of {answer.data.name}, by channel and prefix</caption>
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
                {answer.data.rows.map((row) => (
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
          <Pager meta={answer.meta} onPage={setPage} />
          <p className="actions">
            <a className="button" href={exportHref(`${path}/export`, "csv")} download>
              Export CSV
            </a>
            <span className="hint">Every row of the card, the file the import reads.</span>
          </p>
        </>
      ) : null}
      {answer && !builtIn && canDo(session, "staff_money") ? (
        <section aria-labelledby="replace-title">
          <h2 id="replace-title">Replace its rows</h2>
          <p className="hint">
            A CSV file as <code>switchboard prices import</code> reads it; every row of the card is replaced at once,
            and a bad line refuses the whole file.
          </p>
          <PriceCardImport card={answer.data.name} replaces={() => total} />
        </section>
      ) : null}
    </>
  );
}
