// A reseller changes a sub-account's price after creating it (PATCH /api/v2/subaccounts/{username}):
// a markup on its own price, or an operator's price card by name (held to its own price: the API
// refuses one below, naming the first unit). Confirmed first, as it applies from the next send; an
// owner's or admin's form (manage), the page shows it only to them. The list's sub-accounts whose
// card is below this account's price (decision 0168) are named above the table.
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../api.js";
import type { SubAccount } from "../types.js";
import { ErrorNotice, Field, Success } from "../ui.js";

type Mode = "markup" | "card";

/** What a sub-account is priced by, in words: its card, or its parent's price (`whose`) plus its markup. */
export function priceWords(sub: Pick<SubAccount, "price_card" | "markup_percent">, whose = "your"): string {
  return sub.price_card === null ? `${whose} price + ${sub.markup_percent ?? 0} %` : `card ${sub.price_card}`;
}

export function SubAccountPriceForm({ subs, onChanged }: { subs: readonly SubAccount[]; onChanged: () => void }) {
  const [change, setChange] = useState({ username: "", mode: "markup" as Mode, value: "" });
  /** The change asked for, waiting for its confirmation. */
  const [asking, setAsking] = useState(false);
  const sub = subs.find((s) => s.username === change.username);
  const save = useMutation({
    mutationFn: () =>
      data<SubAccount>(`/api/v2/subaccounts/${encodeURIComponent(change.username)}`, {
        method: "PATCH",
        json: change.mode === "markup" ? { markup_percent: Number(change.value) } : { price_card: change.value.trim() },
      }),
    onSuccess: () => {
      setChange((c) => ({ ...c, value: "" }));
      onChanged();
    },
  });
  const next = change.mode === "markup" ? `your price + ${Number(change.value)} %` : `card ${change.value.trim()}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.reset();
    setAsking(true);
  };
  return (
    <>
      <h2>Price</h2>
      <form onSubmit={submit} aria-label="Change a sub-account's price">
        <Field label="Sub-account to price" id="price-username">
          <select
            id="price-username"
            required
            value={change.username}
            onChange={(event) => {
              setAsking(false);
              setChange({ ...change, username: event.target.value });
            }}
          >
            <option value="">Choose…</option>
            {subs.map((s) => (
              <option key={s.username} value={s.username}>
                {s.username}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Priced by" id="price-mode" hint={sub ? `Now: ${priceWords(sub)}` : undefined}>
          <select
            id="price-mode"
            aria-describedby={sub ? "price-mode-hint" : undefined}
            value={change.mode}
            onChange={(event) => {
              setAsking(false);
              setChange({ ...change, mode: event.target.value as Mode, value: "" });
            }}
          >
            <option value="markup">A markup on your price</option>
            <option value="card">A price card</option>
          </select>
        </Field>
        {change.mode === "markup" ? (
          <Field label="Markup on your price (%)" id="price-markup" hint="0 to 1000, at most 2 decimals">
            <input
              id="price-markup"
              inputMode="decimal"
              required
              pattern="\d{1,4}(\.\d{1,2})?"
              title="A percentage from 0 to 1000 with at most 2 decimals, e.g. 12.5"
              aria-describedby="price-markup-hint"
              value={change.value}
              onChange={(event) => {
                setAsking(false);
                setChange({ ...change, value: event.target.value });
              }}
            />
          </Field>
        ) : (
          <Field
            label="Price card name"
            id="price-card"
            hint="A card the operator gave you the name of; none below your price"
          >
            <input
              id="price-card"
              required
              maxLength={64}
              aria-describedby="price-card-hint"
              value={change.value}
              onChange={(event) => {
                setAsking(false);
                setChange({ ...change, value: event.target.value });
              }}
            />
          </Field>
        )}
        <button type="submit" disabled={save.isPending || asking}>
          Change the price
        </button>
      </form>
      {asking ? (
        <div className="notice" data-testid="price-change-confirm">
          <p>
            {change.username} is charged {next} from its next send (now {sub ? priceWords(sub) : "?"}).
          </p>
          <div className="actions">
            <button
              type="button"
              className="primary"
              onClick={() => {
                setAsking(false);
                save.mutate();
              }}
            >
              Confirm: {change.username} at {next}
            </button>
            <button type="button" onClick={() => setAsking(false)}>
              Keep its price
            </button>
          </div>
        </div>
      ) : null}
      <ErrorNotice error={save.error} title="Price not changed" />
      {save.data ? (
        <Success>
          {save.data.username} is charged {priceWords(save.data)} from its next send.
        </Success>
      ) : null}
    </>
  );
}
