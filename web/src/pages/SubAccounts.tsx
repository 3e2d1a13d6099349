// A reseller's sub-accounts: list them (paged), create one, fund one's wallet (credits issued,
// not taken from this account) or take issued credits back (removed from it, not added here:
// decision 0150), make one an API key (shown once, here), suspend or reactivate one (PATCH:
// suspended is shown as inactive; one the operator blocked has no button). Each form and button is
// shown only to a role that may use it (the API refuses the others): create, suspend and take back
// need manage, giving credits money, keys develop; a support user reads the list. Suspending and
// taking back are confirmed first; a success clears the notices of earlier failures. An owner or
// admin changes a sub-account's card or markup (subaccount-price.tsx, confirmed); a sub-account whose
// card is below this account's price (a card changed since: decision 0168) is marked and named.
// Each row's count of its own sub-accounts opens their list (subaccounts-below.tsx, read only),
// and so on down the tree.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type MouseEvent, useState } from "react";
import { data, paged } from "../api.js";
import { BelowParentNotice } from "../below-parent.js";
import { ConfirmStep } from "../confirm-step.js";
import { formatNumber, plural, walletName } from "../format.js";
import { useLocation } from "../router.js";
import { canDo, useSignedIn } from "../session.js";
import type { Capability, CreatedKey, SubAccount, SubAccountFunding } from "../types.js";
import { Busy, ConfirmButton, ErrorNotice, Field, NewKeyNotice, Pager, PageTitle, Success } from "../ui.js";
import { SubAccountPriceForm } from "./subaccount-price.js";
import { belowParentOf, type ExtraColumn, SubAccountTable, WALLETS } from "./subaccount-table.js";
import { subaccountOf } from "./subaccount-trail.js";
import { SubAccountsBelow } from "./subaccounts-below.js";

const PER_PAGE = 25;

/** The reseller's own sub-accounts, or with `?subaccount=` (and `via`, the levels between) those of one below. */
export default function SubAccounts() {
  const account = subaccountOf(useLocation().query);
  if (account === "") return <OwnSubAccounts />;
  return <SubAccountsBelow key={account} account={account} />;
}

function OwnSubAccounts() {
  const session = useSignedIn();
  const can = (capability: Capability) => canDo(session, capability);
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [form, setForm] = useState({ username: "", password: "", markup: "" });
  const [funding, setFunding] = useState({ username: "", wallet: "sms", amount: "" });
  /** "Take back credits" was pressed: what will be taken waits for its confirmation. */
  const [takingBack, setTakingBack] = useState(false);
  /** "Give credits" was pressed: the gift waits for its confirmation, as a take-back does. */
  const [giving, setGiving] = useState(false);
  const list = useQuery({
    queryKey: ["subaccounts", page],
    queryFn: () => paged<SubAccount>("/api/v2/subaccounts", { page: String(page), per_page: String(PER_PAGE) }),
  });
  /** After a success: the list read again, and the notices of earlier failures gone. */
  const refresh = () => {
    for (const mutation of [create, fund, reclaim, setStatus, newKey]) if (mutation.isError) mutation.reset();
    void queryClient.invalidateQueries({ queryKey: ["subaccounts"] });
  };
  const create = useMutation({
    mutationFn: () =>
      data<SubAccount>("/api/v2/subaccounts", {
        json: {
          username: form.username.trim(),
          password: form.password,
          ...(form.markup.trim() ? { markup_percent: Number(form.markup) } : {}),
        },
      }),
    onSuccess: () => {
      setForm({ username: "", password: "", markup: "" });
      refresh();
    },
  });
  const fund = useMutation({
    mutationFn: () =>
      data<SubAccountFunding>(`/api/v2/subaccounts/${encodeURIComponent(funding.username)}/credits`, {
        json: { wallet: funding.wallet, amount: Number(funding.amount) },
      }),
    onSuccess: () => {
      setFunding((f) => ({ ...f, amount: "" }));
      refresh();
    },
  });
  const reclaim = useMutation({
    mutationFn: () =>
      data<SubAccountFunding>(`/api/v2/subaccounts/${encodeURIComponent(funding.username)}/credits/reclaim`, {
        json: { wallet: funding.wallet, amount: Number(funding.amount) },
      }),
    onSuccess: () => {
      setFunding((f) => ({ ...f, amount: "" }));
      refresh();
    },
  });
  const newKey = useMutation({
    mutationFn: (username: string) =>
      data<CreatedKey>(`/api/v2/subaccounts/${encodeURIComponent(username)}/keys`, { json: {} }),
    onSuccess: refresh,
  });

  const setStatus = useMutation({
    mutationFn: (change: { username: string; status: "active" | "suspended" }) =>
      data<SubAccount>(`/api/v2/subaccounts/${encodeURIComponent(change.username)}`, {
        method: "PATCH",
        json: { status: change.status },
      }),
    onSuccess: refresh,
  });

  const submitCreate = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const submitFund = (event: FormEvent) => {
    event.preventDefault();
    setTakingBack(false);
    reclaim.reset();
    fund.reset();
    setGiving(true);
  };
  const accessCell = (sub: SubAccount) =>
    sub.status === "blocked" ? (
      "Blocked by the operator"
    ) : sub.status === "active" ? (
      <ConfirmButton
        danger
        label={
          <>
            Suspend<span className="visually-hidden"> {sub.username}</span>
          </>
        }
        confirmLabel={`Confirm: suspend ${sub.username}`}
        warning={`${sub.username} and its own sub-accounts can send nothing until you reactivate it.`}
        disabled={setStatus.isPending}
        onConfirm={() => setStatus.mutate({ username: sub.username, status: "suspended" })}
      />
    ) : (
      <button
        type="button"
        onClick={() => setStatus.mutate({ username: sub.username, status: "active" })}
        disabled={setStatus.isPending}
      >
        Reactivate<span className="visually-hidden"> {sub.username}</span>
      </button>
    );
  const takeBack = (event: MouseEvent<HTMLButtonElement>) => {
    if (!event.currentTarget.form?.reportValidity()) return;
    setGiving(false);
    setTakingBack(true);
  };

  /** The columns of the controls the role may use: access (suspend, reactivate) and a new key. */
  const controls: ExtraColumn[] = [
    ...(can("manage") ? [{ header: "Access", cell: accessCell }] : []),
    ...(can("develop")
      ? [
          {
            header: "API key",
            cell: (sub: SubAccount) => (
              <button type="button" onClick={() => newKey.mutate(sub.username)} disabled={newKey.isPending}>
                New key<span className="visually-hidden"> for {sub.username}</span>
              </button>
            ),
          },
        ]
      : []),
  ];

  return (
    <>
      <PageTitle>Sub-accounts</PageTitle>
      <p>
        Your customers' accounts. Each send of theirs is charged to them at their price and to you at yours; credits you
        give them are issued to their wallet, not taken from yours, and credits you take back leave their wallet without
        coming into yours.
      </p>
      {can("manage") || can("money") ? null : (
        <p className="hint" data-testid="subaccounts-read-only">
          Your role ({session.user_role}) reads this list; making sub-accounts and giving them credits is for an owner,
          admin or billing user.
        </p>
      )}
      {can("manage") ? (
        <>
          <h2>New sub-account</h2>
          <form onSubmit={submitCreate} aria-label="Create a sub-account">
            <Field label="Username" id="sub-username">
              <input
                id="sub-username"
                required
                maxLength={64}
                value={form.username}
                onChange={(event) => setForm({ ...form, username: event.target.value })}
              />
            </Field>
            <Field label="Password" id="sub-password" hint="8 to 256 characters">
              <input
                id="sub-password"
                type="password"
                required
                autoComplete="new-password"
                aria-describedby="sub-password-hint"
                value={form.password}
                onChange={(event) => setForm({ ...form, password: event.target.value })}
              />
            </Field>
            <Field label="Markup (%)" id="sub-markup" hint="Added to your price; at most 2 decimals">
              <input
                id="sub-markup"
                inputMode="decimal"
                aria-describedby="sub-markup-hint"
                value={form.markup}
                onChange={(event) => setForm({ ...form, markup: event.target.value })}
              />
            </Field>
            <button type="submit" className="primary" disabled={create.isPending}>
              Create sub-account
            </button>
          </form>
          <ErrorNotice error={create.error} title="Not created" />
          {create.data ? <Success>Created {create.data.username}.</Success> : null}
        </>
      ) : null}

      {can("money") ? (
        <>
          <h2>Credits</h2>
          <form onSubmit={submitFund} aria-label="Give credits to a sub-account">
            <Field label="Sub-account" id="fund-username">
              <select
                id="fund-username"
                required
                value={funding.username}
                onChange={(event) => setFunding({ ...funding, username: event.target.value })}
              >
                <option value="">Choose…</option>
                {(list.data?.data ?? []).map((sub) => (
                  <option key={sub.username} value={sub.username}>
                    {sub.username}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Wallet" id="fund-wallet">
              <select
                id="fund-wallet"
                value={funding.wallet}
                onChange={(event) => setFunding({ ...funding, wallet: event.target.value })}
              >
                {WALLETS.map((wallet) => (
                  <option key={wallet} value={wallet}>
                    {walletName(wallet)}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Credits" id="fund-amount">
              <input
                id="fund-amount"
                inputMode="decimal"
                required
                pattern="\d+(\.\d+)?"
                title="A number of credits, e.g. 500 or 12.5"
                value={funding.amount}
                onChange={(event) => setFunding({ ...funding, amount: event.target.value })}
              />
            </Field>
            <div className="actions">
              <button type="submit" className="primary" disabled={fund.isPending || giving}>
                Give credits
              </button>
              {can("manage") ? (
                <button type="button" onClick={takeBack} disabled={reclaim.isPending || takingBack}>
                  Take back credits
                </button>
              ) : null}
            </div>
          </form>
          {giving ? (
            <ConfirmStep
              testId="give-confirm"
              warning={`${plural(Number(funding.amount), "credit")} are issued to ${funding.username}'s ${walletName(funding.wallet)} wallet now.`}
              confirmLabel={`Confirm: give ${plural(Number(funding.amount), "credit")} to ${funding.username}`}
              keepLabel="Give nothing"
              onConfirm={() => {
                setGiving(false);
                fund.mutate();
              }}
              onKeep={() => setGiving(false)}
            />
          ) : null}
          {takingBack ? (
            <div className="notice" data-testid="take-back-confirm">
              <p>
                {formatNumber(Number(funding.amount))} credits leave {funding.username}'s {walletName(funding.wallet)}{" "}
                wallet now; they do not come back into yours.
              </p>
              <div className="actions">
                <button
                  type="button"
                  className="danger"
                  onClick={() => {
                    setTakingBack(false);
                    fund.reset();
                    reclaim.mutate();
                  }}
                >
                  Confirm: take {formatNumber(Number(funding.amount))} back from {funding.username}
                </button>
                <button type="button" onClick={() => setTakingBack(false)}>
                  Keep them there
                </button>
              </div>
            </div>
          ) : null}
          <ErrorNotice error={fund.error} title="Not given" />
          <ErrorNotice error={reclaim.error} title="Not taken back" />
          {reclaim.data ? (
            <Success>
              Took back {formatNumber(reclaim.data.amount)}: {reclaim.data.username}'s {walletName(reclaim.data.wallet)}{" "}
              wallet: {formatNumber(reclaim.data.balance)} credits.
            </Success>
          ) : null}
          {fund.data ? (
            <Success>
              {fund.data.username}'s {walletName(fund.data.wallet)} wallet: {formatNumber(fund.data.balance)} credits.
            </Success>
          ) : null}
        </>
      ) : null}

      {can("manage") && list.data ? <SubAccountPriceForm subs={list.data.data} onChanged={refresh} /> : null}

      <ErrorNotice error={setStatus.error} title="Not changed" />
      <ErrorNotice error={newKey.error} title="No key made" />
      {newKey.data ? <NewKeyNotice apiKey={newKey.data.api_key} owner={newKey.variables} testId="new-sub-key" /> : null}
      <ErrorNotice error={list.error} />
      {list.isPending ? <Busy /> : null}
      {list.data ? (
        <BelowParentNotice
          below={belowParentOf(list.data.data)}
          testId="subaccounts-below-parent"
          advice="You pay more for each such send than the sub-account is charged: raise its card, or put it on a markup."
        />
      ) : null}
      {list.data ? <SubAccountTable subs={list.data.data} trail={[]} extra={controls} /> : null}
      <Pager meta={list.data?.meta} onPage={setPage} />
    </>
  );
}
