// One account for the operator: what it lacks to send, its balances and a top-up, its limits
// and routes, its price card and low-balance alert, its verify settings, locking it (blocked /
// active, login locks cleared), its SMPP binds now (account-smpp.tsx), its ledger and the ledger's
// totals over dates (../ledger-totals.tsx).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data, withQuery } from "../../api.js";
import { ExportLinks } from "../../exports.js";
import { formatNumber, formatTime, walletName } from "../../format.js";
import {
  ACCOUNT_WALLETS,
  DLT_MATCHING_MODES,
  type LedgerEntry,
  type OperatorAccountDetail,
  ROUTE_CODES,
} from "../../operator-types.js";
import { Link } from "../../router.js";
import { useSignedIn } from "../../session.js";
import { StaffOnly, StaffReadOnly } from "../../staff-gate.js";
import {
  Busy,
  ConfirmButton,
  ErrorNotice,
  Field,
  LedgerTable,
  Pager,
  PageTitle,
  StatusBadge,
  Success,
  useClientPages,
} from "../../ui.js";
import { useAccountZone } from "../account-zone.js";
import { LedgerTotalsSection } from "../ledger-totals.js";
import { AdjustForm, SupportLinks, TopUp } from "./account-desk.js";
import { LowBalanceForm, PriceCardForm } from "./account-pricing.js";
import { AccountBinds } from "./account-smpp.js";
import { VerifySettingsForm } from "./account-verify.js";
import { DltChains } from "./dlt-chains.js";
import { DltLinks } from "./dlt-links.js";
import { DltRegistrations } from "./dlt-registrations.js";
import { TwoFactorReset } from "./two-factor-reset.js";

function Limits({
  account,
  onSaved,
}: {
  account: OperatorAccountDetail;
  onSaved: (next: OperatorAccountDetail) => void;
}) {
  const [draft, setDraft] = useState({
    flood_limit: String(account.flood_limit),
    time_zone: account.time_zone,
    routes: account.routes,
    international_enabled: account.international_enabled,
    dlt_scrubbing: account.dlt_scrubbing,
    dlt_matching: account.dlt_matching,
    promo_sender_enabled: account.promo_sender_enabled,
    get_api_enabled: account.get_api_enabled,
    promo_hours: account.promo_hours ?? "",
    shorten_urls: account.shorten_urls,
  });
  const save = useMutation({
    mutationFn: () =>
      data<OperatorAccountDetail>(`/admin/api/accounts/${encodeURIComponent(account.username)}`, {
        method: "PATCH",
        json: {
          ...draft,
          flood_limit: Number(draft.flood_limit),
          promo_hours: draft.promo_hours.trim() === "" ? null : draft.promo_hours.trim(),
        },
      }),
    onSuccess: onSaved,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const toggles = [
    ["international_enabled", "International SMS"],
    ["dlt_scrubbing", "DLT scrubbing (transactional text must match an approved template)"],
    ["promo_sender_enabled", "Promotional SMS with its own sender ID (route PS)"],
    ["get_api_enabled", "The GET variant of the v2 send"],
    ["shorten_urls", "Tracked short links in every SMS unless a send says otherwise (SHORT_LINK_BASE)"],
  ] as const;
  return (
    <form onSubmit={submit} aria-label="Limits and routes">
      <div className="columns">
        <Field label="SMS per day (flood limit)" id="limit-flood" hint="0 = no limit">
          <input
            id="limit-flood"
            inputMode="numeric"
            aria-describedby="limit-flood-hint"
            value={draft.flood_limit}
            onChange={(event) => setDraft({ ...draft, flood_limit: event.target.value })}
          />
        </Field>
        <Field label="Time zone" id="limit-zone">
          <input
            id="limit-zone"
            value={draft.time_zone}
            onChange={(event) => setDraft({ ...draft, time_zone: event.target.value })}
          />
        </Field>
        <Field
          label="DLT template matching"
          id="limit-matching"
          hint="strict: spaces and line breaks as registered, as operators compare them"
        >
          <select
            id="limit-matching"
            aria-describedby="limit-matching-hint"
            value={draft.dlt_matching}
            onChange={(event) =>
              setDraft({ ...draft, dlt_matching: event.target.value as OperatorAccountDetail["dlt_matching"] })
            }
          >
            {DLT_MATCHING_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {mode}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Promotional hours"
          id="limit-promo-hours"
          hint="HH:MM-HH:MM in the recipients' time; empty = the operator's default (PROMO_HOURS)"
        >
          <input
            id="limit-promo-hours"
            placeholder="09:00-21:00"
            aria-describedby="limit-promo-hours-hint"
            value={draft.promo_hours}
            onChange={(event) => setDraft({ ...draft, promo_hours: event.target.value })}
          />
        </Field>
      </div>
      <fieldset>
        <legend>SMS routes</legend>
        {ROUTE_CODES.map((code) => (
          <div className="check" key={code}>
            <input
              id={`route-${code}`}
              type="checkbox"
              checked={draft.routes.includes(code)}
              onChange={(event) =>
                setDraft({
                  ...draft,
                  routes: event.target.checked ? [...draft.routes, code] : draft.routes.filter((r) => r !== code),
                })
              }
            />
            <label htmlFor={`route-${code}`}>{code}</label>
          </div>
        ))}
      </fieldset>
      <fieldset>
        <legend>Switches</legend>
        {toggles.map(([key, label]) => (
          <div className="check" key={key}>
            <input
              id={`switch-${key}`}
              type="checkbox"
              checked={draft[key]}
              onChange={(event) => setDraft({ ...draft, [key]: event.target.checked })}
            />
            <label htmlFor={`switch-${key}`}>{label}</label>
          </div>
        ))}
      </fieldset>
      <button type="submit" className="primary" disabled={save.isPending}>
        Save limits and routes
      </button>
      <ErrorNotice error={save.error} title="Not saved" />
      {save.isSuccess ? <Success>Saved; it applies to the next request.</Success> : null}
    </form>
  );
}

function Ledger({ username, timeZone }: { username: string; timeZone: string }) {
  const ledger = useQuery({
    queryKey: ["operator", "ledger", username],
    queryFn: () =>
      data<LedgerEntry[]>(withQuery(`/admin/api/accounts/${encodeURIComponent(username)}/ledger`, { limit: 500 })),
  });
  const pages = useClientPages(ledger.data, 20);
  return (
    <section aria-labelledby="ledger-title">
      <h2 id="ledger-title">Ledger</h2>
      <ErrorNotice error={ledger.error} />
      {ledger.isPending ? <Busy /> : null}
      <ExportLinks
        path={`/admin/api/accounts/${encodeURIComponent(username)}/ledger/export`}
        what={`Export the whole ledger of ${username}`}
      />
      <LedgerTable
        entries={pages.rows}
        caption="The last 500 entries, newest first"
        timeZone={timeZone}
        messagePath="/operator/messages/"
      />
      <Pager meta={pages.meta} onPage={pages.setPage} />
    </section>
  );
}

export default function OperatorAccountPage({ params }: { params: Record<string, string> }) {
  const session = useSignedIn();
  const username = params.username ?? "";
  const path = `/admin/api/accounts/${encodeURIComponent(username)}`;
  const queryClient = useQueryClient();
  const key = ["operator", "account", username];
  const account = useQuery({ queryKey: key, queryFn: () => data<OperatorAccountDetail>(path) });
  // Its times in its own zone, as its console shows them, with the zone named (decision 0161).
  const { zone, note: zoneNote } = useAccountZone(username, session.time_zone);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: key });
    void queryClient.invalidateQueries({ queryKey: ["operator", "ledger", username] });
    void queryClient.invalidateQueries({ queryKey: ["ledger-totals"] });
  };
  const change = useMutation({
    mutationFn: (json: Record<string, unknown>) => data<OperatorAccountDetail>(path, { method: "PATCH", json }),
    onSuccess: (next) => queryClient.setQueryData(key, next),
  });

  if (account.error) {
    return (
      <>
        <PageTitle>Account {username}</PageTitle>
        <ErrorNotice error={account.error} />
        <p>
          <Link to="/operator/accounts">Back to the accounts</Link>
        </p>
      </>
    );
  }
  if (!account.data) return <Busy />;
  const a = account.data;
  return (
    <>
      <PageTitle>Account {a.username}</PageTitle>
      <p>
        <StatusBadge status={a.status} /> {a.role}, created {formatTime(a.created_at, zone)}
        {a.locked_until ? `; sign-in locked until ${formatTime(a.locked_until, zone)}` : ""}
      </p>
      {zoneNote}
      {a.ready ? (
        <Success>Ready to send SMS.</Success>
      ) : (
        <div className="notice" role="note">
          <strong>What it lacks to send SMS:</strong>
          <ul>
            {a.missing.map((gap) => (
              <li key={`${gap.what}-${gap.message}`}>
                {gap.message} <code>{gap.command}</code> (operator API: <code>{gap.api}</code>)
              </li>
            ))}
          </ul>
        </div>
      )}

      <SupportLinks username={a.username} viewable={a.role !== "operator"} />
      <AccountBinds username={a.username} timeZone={zone} />

      <section aria-labelledby="lock-title">
        <h2 id="lock-title">Lock and unlock</h2>
        <StaffOnly capability="staff_admin">
          <div className="actions">
            {a.status === "active" ? (
              <ConfirmButton
                danger
                label={`Block ${a.username}`}
                confirmLabel={`Confirm: block ${a.username}`}
                warning={`${a.username} can no longer sign in, and every key of it is refused until the account is activated again.`}
                onConfirm={() => change.mutate({ status: "blocked" })}
              />
            ) : (
              <button type="button" onClick={() => change.mutate({ status: "active" })}>
                Activate {a.username}
              </button>
            )}
            <button type="button" onClick={() => change.mutate({ unlock: true })}>
              Clear sign-in locks
            </button>
          </div>
          <ErrorNotice error={change.error} title="Not changed" />
          <TwoFactorReset username={a.username} />
        </StaffOnly>
      </section>

      <section aria-labelledby="balances-title">
        <h2 id="balances-title">Credits</h2>
        <ul className="cards">
          {ACCOUNT_WALLETS.map((wallet) => (
            <li key={wallet} className="card" data-testid={`operator-wallet-${wallet}`}>
              <span className="card-label">{walletName(wallet)}</span>
              <span className="card-value">{formatNumber(a.balances[wallet] ?? 0)}</span>
            </li>
          ))}
        </ul>
        <StaffOnly capability="staff_money">
          <TopUp username={a.username} onDone={refresh} />
          <h3>Correct a balance</h3>
          <AdjustForm username={a.username} onDone={refresh} />
        </StaffOnly>
      </section>

      <section aria-labelledby="limits-title">
        <h2 id="limits-title">Limits and routes</h2>
        <StaffReadOnly capability="staff_admin" what="changing the limits and routes">
          <Limits key={a.username} account={a} onSaved={(next) => queryClient.setQueryData(key, next)} />
        </StaffReadOnly>
        <h3>Price</h3>
        <StaffReadOnly capability="staff_money" what="changing the price">
          <PriceCardForm key={a.username} account={a} onSaved={(next) => queryClient.setQueryData(key, next)} />
        </StaffReadOnly>
        <h3>Low-balance alert</h3>
        <StaffReadOnly capability="staff_admin" what="changing the alert">
          <LowBalanceForm username={a.username} />
        </StaffReadOnly>
      </section>

      <section aria-labelledby="verify-title">
        <h2 id="verify-title">Verify</h2>
        <StaffReadOnly capability="staff_admin" what="changing the verify settings">
          <VerifySettingsForm username={a.username} />
        </StaffReadOnly>
      </section>

      <section aria-labelledby="registrations-title">
        <h2 id="registrations-title">Registrations</h2>
        <dl className="facts">
          <dt>Sender IDs</dt>
          <dd>{a.registrations.sender_ids.map((s) => `${s.sender_id} (${s.status})`).join(", ") || "none"}</dd>
          <dt>Templates</dt>
          <dd>
            {a.registrations.templates.approved} approved, {a.registrations.templates.pending} waiting (
            <Link to="/operator/approvals">approval queue</Link>)
          </dd>
        </dl>
        <StaffReadOnly capability="staff_admin" what="changing the DLT registrations">
          <DltRegistrations
            username={a.username}
            headers={a.registrations.dlt_headers}
            entities={a.registrations.dlt_entities}
            onChange={refresh}
          />
          <DltLinks key={a.username} username={a.username} entities={a.registrations.dlt_entities} />
          <DltChains key={`${a.username}:${a.registrations.dlt_entities.join(",")}`} username={a.username} />
        </StaffReadOnly>
      </section>
      <Ledger username={a.username} timeZone={zone} />
      <LedgerTotalsSection path={`${path}/ledger/totals`} timeZone={zone} />
    </>
  );
}
