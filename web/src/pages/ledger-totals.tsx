// The ledger added up over a window of dates (GET /api/v2/credits/totals, or the operator's
// /admin/api/accounts/{username}/ledger/totals), for the account's Credits page and the operator's
// account page: per wallet the opening balance, what each kind of entry moved, the closing
// balance; without an end date, whether the closing (the entries' sum) is the balance kept.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data, withQuery } from "../api.js";
import { formatNumber, walletName } from "../format.js";
import type { LedgerTotals } from "../types.js";
import { Busy, ErrorNotice, Field } from "../ui.js";

const COLUMNS: [keyof LedgerTotals, string][] = [
  ["opening", "Opening"],
  ["topup", "Top-ups"],
  ["debit", "Spent"],
  ["refund", "Refunded"],
  ["transfer_in", "Transferred in"],
  ["transfer_out", "Transferred out"],
  ["adjustment", "Corrections"],
  ["closing", "Closing"],
  ["entries", "Entries"],
];

/** The window's two dates and their labels (the end date is a whole day, included). */
const BOUNDS = [
  ["from", "From (date)"],
  ["to", "To (date, included)"],
] as const;

/** Whether every wallet's entries add up to its balance (asked only of a window without an end). */
function AddsUp({ rows }: { rows: LedgerTotals[] }) {
  const off = rows.filter((row) => row.closing !== row.balance);
  if (off.length === 0) {
    return <p data-testid="ledger-adds-up">Every wallet's entries add up to its balance now.</p>;
  }
  return (
    <p role="alert" data-testid="ledger-adds-up">
      {off
        .map(
          (row) =>
            `${walletName(row.wallet)}: the entries add up to ${formatNumber(row.closing)}, the balance is ${formatNumber(row.balance)}`,
        )
        .join("; ")}
      .
    </p>
  );
}

export function LedgerTotalsSection({ path, timeZone }: { path: string; timeZone: string }) {
  const [draft, setDraft] = useState({ from: "", to: "" });
  const [range, setRange] = useState(draft);
  const url = withQuery(path, range);
  const totals = useQuery({ queryKey: ["ledger-totals", url], queryFn: () => data<LedgerTotals[]>(url) });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setRange(draft);
  };
  // A wallet never funded and never used says nothing.
  const rows = (totals.data ?? []).filter((row) => row.entries > 0 || row.opening !== 0 || row.balance !== 0);
  return (
    <section aria-labelledby="ledger-totals-title">
      <h2 id="ledger-totals-title">Ledger totals</h2>
      <p className="hint">
        Each wallet's entries added up between two dates ({timeZone}; either may be left empty): the balance before
        (opening), what each kind of entry moved, and the balance at the end (closing).
      </p>
      <form className="filters" onSubmit={apply} aria-label="Add up the ledger">
        {BOUNDS.map(([name, label]) => (
          <Field key={name} label={label} id={`ledger-${name}`}>
            <input
              id={`ledger-${name}`}
              type="date"
              value={draft[name]}
              onChange={(event) => setDraft({ ...draft, [name]: event.target.value })}
            />
          </Field>
        ))}
        <button type="submit">Add up</button>
      </form>
      <ErrorNotice error={totals.error} />
      {totals.isPending ? <Busy /> : null}
      {totals.data ? (
        <>
          <div className="table-wrap">
            <table data-testid="ledger-totals">
              <caption>
                Ledger totals per wallet
                {range.from ? `, from ${range.from}` : ", from the first entry"}
                {range.to ? ` to ${range.to} included` : " to now"}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Wallet</th>
                  {COLUMNS.map(([key, label]) => (
                    <th scope="col" key={key}>
                      {label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.wallet} data-testid={`ledger-totals-${row.wallet}`}>
                    <th scope="row">{walletName(row.wallet)}</th>
                    {COLUMNS.map(([key]) => (
                      <td key={key}>{formatNumber(row[key] as number)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {range.to ? null : <AddsUp rows={rows} />}
        </>
      ) : null}
    </section>
  );
}
