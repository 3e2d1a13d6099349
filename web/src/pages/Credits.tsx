// Credits: every wallet, what was used today and this month, the daily history (messages of
// every channel, SMS credits), the ledger's last 10 entries (the export holds every one), its
// totals over dates (ledger-totals.tsx), and a transfer of SMS credits to another account.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../api.js";
import { ConfirmStep } from "../confirm-step.js";
import { ExportLinks } from "../exports.js";
import { formatNumber, plural, walletName } from "../format.js";
import { canDo, useSignedIn } from "../session.js";
import { type CreditDay, type CreditsDetail, type CreditTransfer, WALLETS } from "../types.js";
import { Busy, ErrorNotice, Field, LedgerTable, Pager, PageTitle, Success, useClientPages } from "../ui.js";
import { LedgerTotalsSection } from "./ledger-totals.js";

/** How many ledger entries GET /api/v2/credits answers (`recent_credits`): the last ones, not a page. */
const RECENT_ENTRIES = 10;

/** What a sub-account's credits answer names as its price card (decision 0150). */
const SUB_ACCOUNT_PRICE = "your price";

export function TransferForm({ onDone }: { onDone: () => void }) {
  const [recipient, setRecipient] = useState("");
  const [amount, setAmount] = useState("");
  const [description, setDescription] = useState("");
  /** "Transfer" was pressed: the credits move once it is confirmed. */
  const [asking, setAsking] = useState(false);
  const transfer = useMutation({
    mutationFn: () =>
      data<CreditTransfer>("/api/v2/credits/transfer", {
        json: {
          recipient_username: recipient.trim(),
          amount: Number(amount),
          ...(description.trim() ? { description: description.trim() } : {}),
        },
      }),
    onSuccess: () => {
      setAmount("");
      setDescription("");
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    transfer.reset();
    setAsking(true);
  };
  const credits = plural(Number(amount), "credit");
  return (
    <form onSubmit={submit} aria-label="Transfer SMS credits">
      <div className="columns">
        <Field label="To account (username)" id="transfer-to">
          <input
            id="transfer-to"
            required
            autoComplete="off"
            value={recipient}
            onChange={(event) => setRecipient(event.target.value)}
          />
        </Field>
        <Field label="SMS credits" id="transfer-amount" hint="Up to 3 decimals">
          <input
            id="transfer-amount"
            required
            inputMode="decimal"
            pattern="\d+(\.\d{1,3})?"
            title="A number of SMS credits, up to 3 decimals, e.g. 500 or 12.5"
            aria-describedby="transfer-amount-hint"
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
          />
        </Field>
        <Field label="Description" id="transfer-description">
          <input
            id="transfer-description"
            maxLength={500}
            value={description}
            onChange={(event) => setDescription(event.target.value)}
          />
        </Field>
      </div>
      <button type="submit" className="primary" disabled={transfer.isPending || asking}>
        Transfer
      </button>
      {asking ? (
        <ConfirmStep
          testId="transfer-confirm"
          warning={`${credits} leave your SMS wallet for ${recipient.trim()} now.`}
          confirmLabel={`Confirm: send ${credits} to ${recipient.trim()}`}
          onConfirm={() => {
            setAsking(false);
            transfer.mutate();
          }}
          onKeep={() => setAsking(false)}
        />
      ) : null}
      <ErrorNotice error={transfer.error} title="Not transferred" />
      {transfer.data ? (
        <Success>
          {plural(transfer.data.amount, "credit")} sent to {transfer.data.recipient_username};{" "}
          {formatNumber(transfer.data.balance)} left.
        </Success>
      ) : null}
    </form>
  );
}

export default function Credits() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const detail = useQuery({ queryKey: ["credits"], queryFn: () => data<CreditsDetail>("/api/v2/credits") });
  const history = useQuery({
    queryKey: ["credits", "history"],
    queryFn: () => data<CreditDay[]>("/api/v2/credits/history?days=90"),
  });
  const days = useClientPages(history.data ? [...history.data].reverse() : undefined, 15);
  const recent = detail.data?.recent_credits ?? [];
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ["credits"] });
    void queryClient.invalidateQueries({ queryKey: ["balance"] });
    void queryClient.invalidateQueries({ queryKey: ["ledger-totals"] });
  };
  return (
    <>
      <PageTitle>Credits</PageTitle>
      <ErrorNotice error={detail.error} />
      {detail.isPending ? <Busy /> : null}
      {detail.data ? (
        <>
          <ul className="cards">
            {WALLETS.map((wallet) => (
              <li key={wallet} className="card" data-testid={`credits-${wallet}`}>
                <span className="card-label">{walletName(wallet)}</span>
                <span className="card-value">{formatNumber(detail.data.wallets[wallet] ?? 0)}</span>
              </li>
            ))}
          </ul>
          <p data-testid="credits-used">
            SMS credits used today {formatNumber(detail.data.today_used)}, this month{" "}
            {formatNumber(detail.data.month_used)}.
          </p>
          <p className="hint" data-testid="daily-limit">
            {detail.data.flood_limit > 0
              ? `Daily SMS limit: ${formatNumber(detail.data.flood_current)} of ${formatNumber(detail.data.flood_limit)} counted today`
              : `No daily SMS limit; ${formatNumber(detail.data.flood_current)} counted toward one today`}{" "}
            (every SMS accepted today, those cancelled and refunded since included).
          </p>
          {detail.data.price_card === SUB_ACCOUNT_PRICE ? (
            // A sub-account is told its own prices only, never its provider's card (decision 0150).
            <p>Your prices are set by your provider: the price of a number is quoted by GET /api/v2/pricing.</p>
          ) : (
            <p>
              Price card: <strong>{detail.data.price_card}</strong>
              {detail.data.price_card === "default"
                ? " (1 credit an SMS segment or call unit)"
                : ": the price of a number is quoted by GET /api/v2/pricing"}
              .
            </p>
          )}
          <section aria-labelledby="recent-title">
            <h2 id="recent-title">Recent entries</h2>
            <p data-testid="recent-count">
              {recent.length < RECENT_ENTRIES
                ? `Every entry of the ledger (${recent.length}), newest first.`
                : `The last ${RECENT_ENTRIES} entries of the ledger, newest first; the export holds every one.`}
            </p>
            <ExportLinks path="/api/v2/credits/export" what="Export the whole ledger" />
            {canDo(session, "read") ? null : (
              // A billing user has no Messages page, but may export them (access.ts: read or money).
              <ExportLinks path="/api/v2/messages/export" what="Export every message" />
            )}
            <LedgerTable
              entries={recent}
              caption={
                recent.length < RECENT_ENTRIES
                  ? "Every ledger entry, newest first"
                  : `The last ${RECENT_ENTRIES} ledger entries, newest first`
              }
              timeZone={session.time_zone}
            />
          </section>
        </>
      ) : null}
      <LedgerTotalsSection path="/api/v2/credits/totals" timeZone={session.time_zone} />
      <section aria-labelledby="history-title">
        <h2 id="history-title">Daily use</h2>
        <p className="hint">
          Messages: those of every channel (SMS, WhatsApp, email, voice) accepted that day. SMS credits: the SMS and
          international wallets' debits that day, refunds taken off (the other wallets are in the ledger).
        </p>
        <ErrorNotice error={history.error} />
        <div className="table-wrap">
          <table data-testid="credit-history">
            <caption>
              Messages of every channel and SMS credits used, per day ({session.time_zone}), newest first, last 90 days
            </caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Messages, every channel</th>
                <th scope="col">SMS credits used</th>
              </tr>
            </thead>
            <tbody>
              {days.rows.map((day) => (
                <tr key={day.date}>
                  <td>{day.date}</td>
                  <td>{formatNumber(day.messages)}</td>
                  <td>{formatNumber(day.credits_used)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager meta={days.meta} onPage={days.setPage} />
      </section>
      <section aria-labelledby="transfer-title">
        <h2 id="transfer-title">Transfer SMS credits</h2>
        <TransferForm onDone={refresh} />
      </section>
    </>
  );
}
