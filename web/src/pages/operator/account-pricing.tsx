// The operator's account page, what the account pays and when it is warned: its price card
// (chosen from the cards of the Price cards page, PATCH /admin/api/accounts/{username} `price_card`)
// and its own low-balance alert threshold (PUT /admin/api/accounts/{username}/low-balance-threshold;
// none: the operator's default of the Alerts page applies).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../../api.js";
import { BelowParentNotice } from "../../below-parent.js";
import { plural, walletName } from "../../format.js";
import type { AccountThreshold, OperatorAccountDetail, PriceCardSummary } from "../../operator-types.js";
import { Link } from "../../router.js";
import { ErrorNotice, Field, Success } from "../../ui.js";
import { WalletOptions } from "./account-desk.js";

/** The built-in card (1 credit a unit), which the Price cards pages show but never change. */
export const DEFAULT_CARD = "default";

/** The account's price card, picked from the cards the operator has imported. */
export function PriceCardForm({
  account,
  onSaved,
}: {
  account: OperatorAccountDetail;
  onSaved: (next: OperatorAccountDetail) => void;
}) {
  const [card, setCard] = useState(account.price_card);
  // A sub-account without a card of its own is priced by its parent (`parent+<markup>%`): that is
  // its first choice, saved as no card (null); the built-in default (1 credit a unit) is a card it
  // may be put on too, held like any other to its parent's price (decision 0165).
  const parentPrice = account.parent === null ? undefined : `parent+${account.markup_percent ?? 0}%`;
  const cards = useQuery({
    queryKey: ["operator", "price-cards"],
    queryFn: () => data<PriceCardSummary[]>("/admin/api/price-cards"),
  });
  const save = useMutation({
    mutationFn: () =>
      data<OperatorAccountDetail>(`/admin/api/accounts/${encodeURIComponent(account.username)}`, {
        method: "PATCH",
        json: { price_card: card === parentPrice ? null : card },
      }),
    onSuccess: (next) => {
      setCard(next.price_card);
      onSaved(next);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const names = [
    ...(parentPrice === undefined ? [] : [parentPrice]),
    DEFAULT_CARD,
    ...(cards.data ?? []).map((c) => c.name).filter((name) => name !== DEFAULT_CARD),
  ];
  const rowsOf = (name: string) => cards.data?.find((c) => c.name === name)?.rows;
  return (
    <form onSubmit={submit} aria-label="What the account pays" className="columns">
      <Field
        label="Price card"
        id="price-card"
        hint={
          card === DEFAULT_CARD ? (
            "default: 1 credit an SMS segment or voice unit"
          ) : card === parentPrice ? (
            `the parent ${account.parent}'s price plus ${account.markup_percent ?? 0} %`
          ) : (
            <>
              <Link to={`/operator/price-cards/${encodeURIComponent(card)}`}>{plural(rowsOf(card) ?? 0, "row")}</Link>{" "}
              (cards are imported on <Link to="/operator/price-cards">Price cards</Link>)
            </>
          )
        }
      >
        <select
          id="price-card"
          aria-describedby="price-card-hint"
          value={card}
          onChange={(event) => setCard(event.target.value)}
        >
          {names.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </Field>
      <div>
        <button type="submit" className="primary" disabled={save.isPending || card === account.price_card}>
          Set the price card
        </button>
      </div>
      <ErrorNotice error={cards.error ?? save.error} title="Not saved" />
      {save.isSuccess ? <Success>Priced by {save.data.price_card} from the next send.</Success> : null}
      <BelowParentNotice
        below={[...(account.below_parent ? [account.below_parent] : []), ...account.subaccounts_below_parent]}
        testId="account-below-parent"
        advice="Raise the sub-account's card, or put it back on its parent's price with a markup (choose parent+…%)."
      />
    </form>
  );
}

/** The account's own low-balance threshold: set, changed, or removed (back to the default). */
export function LowBalanceForm({ username }: { username: string }) {
  const path = `/admin/api/accounts/${encodeURIComponent(username)}/low-balance-threshold`;
  const key = ["operator", "low-balance", username];
  const queryClient = useQueryClient();
  const current = useQuery({ queryKey: key, queryFn: () => data<AccountThreshold>(path) });
  const [draft, setDraft] = useState<{ wallet: string; threshold: string } | null>(null);
  const save = useMutation({
    mutationFn: (threshold: number | null) =>
      data<AccountThreshold>(path, {
        method: "PUT",
        json: { threshold, wallet: draft?.wallet ?? current.data?.wallet ?? "sms" },
      }),
    onSuccess: (next) => {
      queryClient.setQueryData(key, next);
      setDraft(null);
    },
  });
  if (!current.data) return <ErrorNotice error={current.error} title="Not read" />;
  const shown = draft ?? {
    wallet: current.data.wallet,
    threshold: current.data.threshold === null ? "" : String(current.data.threshold),
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(Number(shown.threshold));
  };
  const own = current.data.threshold;
  return (
    <form onSubmit={submit} aria-label="When the account is warned" className="columns">
      <Field label="Wallet watched" id="low-balance-wallet">
        <select
          id="low-balance-wallet"
          value={shown.wallet}
          onChange={(event) => setDraft({ ...shown, wallet: event.target.value })}
        >
          <WalletOptions />
        </select>
      </Field>
      <Field
        label="Alert below (credits)"
        id="low-balance-threshold"
        hint={
          own === null ? (
            <>
              none of its own: the default of <Link to="/operator/alerts">Alerts</Link> applies
            </>
          ) : (
            `alerted when the ${walletName(current.data.wallet)} wallet falls below ${plural(own, "credit")}`
          )
        }
      >
        <input
          id="low-balance-threshold"
          inputMode="decimal"
          required
          aria-describedby="low-balance-threshold-hint"
          value={shown.threshold}
          onChange={(event) => setDraft({ ...shown, threshold: event.target.value })}
        />
      </Field>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Set the threshold
        </button>
        {own !== null ? (
          <button type="button" onClick={() => save.mutate(null)} disabled={save.isPending}>
            Use the default
          </button>
        ) : null}
      </div>
      <ErrorNotice error={save.error} title="Not saved" />
    </form>
  );
}
