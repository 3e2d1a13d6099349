// The support desk's part of the operator's account page: the account's messages (the operator's
// Messages page, pre-filtered), "View as this account" (its console, read-only, recorded), a
// correction of a wallet (± credits with a reason, written as an `adjustment` in the ledger) and
// the recent views of the account; and a top-up. Both money forms ask for a confirmation first.
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data, withQuery } from "../../api.js";
import { ConfirmStep } from "../../confirm-step.js";
import { formatNumber, plural, walletName } from "../../format.js";
import { ACCOUNT_WALLETS, type CreditAdjustment, type CreditTopUp } from "../../operator-types.js";
import { Link, navigate } from "../../router.js";
import { useSession } from "../../session.js";
import { ErrorNotice, Field, Success } from "../../ui.js";
import { ViewsTable } from "./Views.js";

/**
 * Links to the account's messages, and "View as this account" for a customer's: an operator
 * account is not viewed (its staff are signed in to it with their own role; the server refuses).
 */
export function SupportLinks({ username, viewable }: { username: string; viewable: boolean }) {
  const { openView } = useSession();
  const view = useMutation({
    mutationFn: () => openView(username),
    onSuccess: () => navigate("/", { replace: false }),
  });
  return (
    <section aria-labelledby="support-title">
      <h2 id="support-title">Support</h2>
      <div className="actions">
        <Link className="button" to={withQuery("/operator/messages", { account: username })}>
          Messages of {username}
        </Link>
        {viewable && (
          <button type="button" onClick={() => view.mutate()} disabled={view.isPending}>
            View as this account
          </button>
        )}
      </div>
      <p className="hint">
        {viewable
          ? "The view opens the account's console read-only: it changes nothing, and it is recorded (who, when, from where)."
          : "An operator account is not viewed: its staff sign in to it with their own roles."}
      </p>
      <ErrorNotice error={view.error} title="Not opened" />
      <details>
        <summary>Recent views of {username}</summary>
        <ViewsTable account={username} caption={`The last views of ${username}, newest first`} />
      </details>
    </section>
  );
}

/** POST /admin/api/accounts/{username}/credits/adjust: ± credits on a wallet, with a reason. */
export function AdjustForm({ username, onDone }: { username: string; onDone: () => void }) {
  const [wallet, setWallet] = useState("sms");
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const [asking, setAsking] = useState(false);
  const adjust = useMutation({
    mutationFn: () =>
      data<CreditAdjustment>(`/admin/api/accounts/${encodeURIComponent(username)}/credits/adjust`, {
        json: { wallet, amount: Number(amount), reason: reason.trim() },
      }),
    onSuccess: () => {
      setAmount("");
      setReason("");
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    adjust.reset();
    setAsking(true);
  };
  const change = Number(amount);
  const done = adjust.data;
  return (
    <form onSubmit={submit} aria-label="Correct a balance" className="columns">
      <Field label="Wallet to correct" id="adjust-wallet">
        <select id="adjust-wallet" value={wallet} onChange={(event) => setWallet(event.target.value)}>
          <WalletOptions />
        </select>
      </Field>
      <Field label="Credits (+ or −)" id="adjust-amount" hint="-50 takes 50 away; 12.5 adds 12.5">
        <input
          id="adjust-amount"
          inputMode="decimal"
          required
          pattern="-?\d+(\.\d+)?"
          title="A number of credits, e.g. -50 or 12.5"
          aria-describedby="adjust-amount-hint"
          value={amount}
          onChange={(event) => setAmount(event.target.value.replace("−", "-"))}
        />
      </Field>
      <Field label="Reason" id="adjust-reason" hint="Written in the ledger">
        <input
          id="adjust-reason"
          required
          maxLength={500}
          aria-describedby="adjust-reason-hint"
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
      </Field>
      <div>
        <button type="submit" className="primary" disabled={adjust.isPending || asking}>
          Correct the balance
        </button>
      </div>
      {asking ? (
        <ConfirmStep
          testId="adjust-confirm"
          warning={`The ${wallet} wallet of ${username} is corrected now, written in its ledger as: ${reason.trim()}`}
          confirmLabel={`Confirm: ${change < 0 ? "take" : "add"} ${plural(Math.abs(change), "credit")} ${change < 0 ? "from" : "to"} ${username}`}
          onConfirm={() => {
            setAsking(false);
            adjust.mutate();
          }}
          onKeep={() => setAsking(false)}
        />
      ) : null}
      <ErrorNotice error={adjust.error} title="Not corrected" />
      {done ? (
        <Success>
          {done.adjusted > 0 ? "Added" : "Took away"} {formatNumber(Math.abs(done.adjusted))}{" "}
          {Math.abs(done.adjusted) === 1 ? "credit" : "credits"} ({done.reason}): the {done.wallet} wallet of{" "}
          {done.account} now holds {formatNumber(done.balance)}.
        </Success>
      ) : null}
    </form>
  );
}

/** POST /admin/api/accounts/{username}/credits: credits added to a wallet, once confirmed. */
export function TopUp({ username, onDone }: { username: string; onDone: () => void }) {
  const [wallet, setWallet] = useState("sms");
  const [amount, setAmount] = useState("");
  const [note, setNote] = useState("");
  const [asking, setAsking] = useState(false);
  const topUp = useMutation({
    mutationFn: () =>
      data<CreditTopUp>(`/admin/api/accounts/${encodeURIComponent(username)}/credits`, {
        json: { wallet, amount: Number(amount), ...(note.trim() ? { note: note.trim() } : {}) },
      }),
    onSuccess: () => {
      setAmount("");
      setNote("");
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    topUp.reset();
    setAsking(true);
  };
  return (
    <form onSubmit={submit} aria-label="Top up credits" className="columns">
      <Field label="Wallet" id="topup-wallet">
        <select id="topup-wallet" value={wallet} onChange={(event) => setWallet(event.target.value)}>
          <WalletOptions />
        </select>
      </Field>
      <Field label="Credits to add" id="topup-amount">
        <input
          id="topup-amount"
          inputMode="decimal"
          required
          pattern="\d+(\.\d+)?"
          title="A number of credits, e.g. 500 or 12.5"
          value={amount}
          onChange={(event) => setAmount(event.target.value)}
        />
      </Field>
      <Field label="Note" id="topup-note">
        <input id="topup-note" maxLength={500} value={note} onChange={(event) => setNote(event.target.value)} />
      </Field>
      <div>
        <button type="submit" className="primary" disabled={topUp.isPending || asking}>
          Add credits
        </button>
      </div>
      {asking ? (
        <ConfirmStep
          testId="topup-confirm"
          warning={`${plural(Number(amount), "credit")} are added to the ${walletName(wallet)} wallet of ${username} now.`}
          confirmLabel={`Confirm: add ${plural(Number(amount), "credit")} to ${username}`}
          onConfirm={() => {
            setAsking(false);
            topUp.mutate();
          }}
          onKeep={() => setAsking(false)}
        />
      ) : null}
      <ErrorNotice error={topUp.error} title="Not added" />
      {topUp.data ? (
        <Success>
          The {walletName(topUp.data.wallet)} wallet now holds {plural(topUp.data.balance, "credit")}.
        </Success>
      ) : null}
    </form>
  );
}

/** The account's wallets, as the options of a select. */
export function WalletOptions() {
  return ACCOUNT_WALLETS.map((w) => (
    <option key={w} value={w}>
      {w}
    </option>
  ));
}
