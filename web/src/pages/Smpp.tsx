// The account's SMPP server access (GET /api/v2/smpp/binds): whether it has any, its limits, and
// the clients bound now in any process, refreshed every 5 s, so that "is our SMPP client
// connected?" is answered here. With `?subaccount=` (and `via`, the levels between: a reseller's
// link from Sub-accounts) the clients bound now of an account below it, read only, under its trail
// from the top (subaccount-trail.tsx; the levels the answer names, without `via` too): its access is
// its own, not shown. A blank ?subaccount= is the reader's own page. The bind table serves the
// operator's account page too.
import { useQuery } from "@tanstack/react-query";
import { ApiError, data, withQuery } from "../api.js";
import { formatNumber, formatTime, zoneLabel } from "../format.js";
import type { SmppBind } from "../operator-types.js";
import { Link, useLocation } from "../router.js";
import { useSignedIn } from "../session.js";
import type { AccountSmppBind, AccountSmppBinds } from "../types.js";
import { Busy, ErrorNotice, PageTitle } from "../ui.js";
import { BackToTree, subaccountOf, TreeTrail, trailLink, useTrail } from "./subaccount-trail.js";

/** How often the binds are read again: the holding process reports every 5 s. */
export const BINDS_REFRESH_MS = 5_000;

const limit = (value: number | null, unit: string) => (value ? `${formatNumber(value)} ${unit}` : "no limit");

/** The account's own SMPP page, or with `?subaccount=` the binds of one below it. */
export default function SmppPage() {
  const username = subaccountOf(useLocation().query);
  if (!username) return <OwnSmpp />;
  return <SubAccountBinds key={username} username={username} />;
}

/**
 * The clients bound now of `username`, an account below the reader, refreshed as the own ones are,
 * under its trail (useTrail) with the way back it was opened with; another tree's name is the API's
 * 404, in words, and not asked again.
 */
function SubAccountBinds({ username }: { username: string }) {
  const session = useSignedIn();
  const binds = useQuery({
    queryKey: ["smpp", "binds", username],
    queryFn: () => data<AccountSmppBinds>(withQuery("/api/v2/smpp/binds", { subaccount: username })),
    refetchInterval: (query) => (query.state.error ? false : BINDS_REFRESH_MS),
  });
  const { trail, wayBack, known } = useTrail(binds);
  const notFound = binds.error instanceof ApiError && binds.error.status === 404;
  return (
    <>
      <PageTitle>SMPP binds of {username}</PageTitle>
      {known ? <TreeTrail trail={trail} page="SMPP binds" /> : null}
      <p>
        {username}'s SMPP clients bound to the gateway now. You read them here; its SMPP access and limits are its own.
      </p>
      {known ? (
        <p data-testid="subaccount-filter">
          <Link to={trailLink("/messages", trail, wayBack)}>its messages</Link> ·{" "}
          <Link to={trailLink("/refusals", trail, wayBack)}>its refused sends</Link> ·{" "}
          <BackToTree trail={trail} wayBack={wayBack} />
        </p>
      ) : null}
      <ErrorNotice error={binds.error} title={notFound ? "Not found" : undefined} />
      {binds.isPending ? <Busy /> : null}
      {binds.data ? (
        <section aria-labelledby="binds-title">
          <h2 id="binds-title">Bound now</h2>
          <BindsTable binds={binds.data.binds} timeZone={session.time_zone} />
        </section>
      ) : null}
    </>
  );
}

function OwnSmpp() {
  const session = useSignedIn();
  const binds = useQuery({
    queryKey: ["smpp", "binds"],
    queryFn: () => data<AccountSmppBinds>("/api/v2/smpp/binds"),
    refetchInterval: BINDS_REFRESH_MS,
  });
  const access = binds.data;
  return (
    <>
      <PageTitle>SMPP</PageTitle>
      <p>Your SMPP clients bound to the gateway now, and the limits the operator set for them.</p>
      <ErrorNotice error={binds.error} />
      {binds.isPending ? <Busy /> : null}
      {access && !access.enabled ? (
        <div className="notice" role="note" data-testid="smpp-off">
          This account has no SMPP access: the operator gives it an SMPP password first.
        </div>
      ) : null}
      {access?.enabled ? (
        <dl className="facts" data-testid="smpp-access">
          <dt>Binds at once</dt>
          <dd>{limit(access.max_binds, "at most")}</dd>
          <dt>Submits per second</dt>
          <dd>{limit(access.submits_per_second, "at most, over all binds")}</dd>
          <dt>Binds may come from</dt>
          <dd>{access.allowed_ips?.length ? access.allowed_ips.join(", ") : "any address"}</dd>
        </dl>
      ) : null}
      {access ? (
        <section aria-labelledby="binds-title">
          <h2 id="binds-title">Bound now</h2>
          <BindsTable binds={access.binds} timeZone={session.time_zone} />
        </section>
      ) : null}
    </>
  );
}

/**
 * The binds open now, oldest first; the operator's carry the process holding each. Times in
 * `timeZone`, named in the column's header.
 */
export function BindsTable({ binds, timeZone }: { binds: readonly (AccountSmppBind | SmppBind)[]; timeZone: string }) {
  if (binds.length === 0) {
    return (
      <p data-testid="no-binds">
        No SMPP client is bound now. A client that binds is listed within a few seconds; one that stopped answering is
        dropped after its bind times out.
      </p>
    );
  }
  const operator = binds.some((bind) => "process" in bind);
  return (
    <div className="table-wrap">
      <table data-testid="binds">
        <caption>Oldest first, as each bind's process reported it in the last 5 s</caption>
        <thead>
          <tr>
            <th scope="col">Mode</th>
            <th scope="col">From</th>
            <th scope="col">Bound since ({zoneLabel(timeZone)})</th>
            <th scope="col">Submits</th>
            <th scope="col">Per second</th>
            {operator ? <th scope="col">Process</th> : null}
          </tr>
        </thead>
        <tbody>
          {binds.map((bind) => (
            <tr key={bind.id} data-testid="bind">
              <td>{bind.mode}</td>
              <td>
                {bind.address}:{bind.port}
                {bind.tls ? " (TLS)" : ""}
              </td>
              <td>
                <time dateTime={bind.bound_at}>{formatTime(bind.bound_at, timeZone)}</time>
              </td>
              <td>{formatNumber(bind.submits)}</td>
              <td>{formatNumber(bind.submits_per_second)}</td>
              {"process" in bind ? (
                <td>
                  {bind.process.host}, pid {bind.process.pid}
                  {bind.disconnect_requested ? " (disconnecting)" : ""}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
