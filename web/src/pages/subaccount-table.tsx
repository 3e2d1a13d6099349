// The table of a list of sub-accounts (GET /api/v2/subaccounts): the signed-in account's own, or
// those of an account below it (`parent`, with the trail of accounts from the first level down to
// it). Each name opens its messages, and its row its refused sends and SMPP binds, each with the
// trail (subaccount-trail.tsx) so that they lead back to this list; each count of sub-accounts
// opens their list, so a reseller walks down its tree a level at a time. The own list adds the
// columns of its controls.
import type { ReactNode } from "react";
import { formatNumber, formatTime, walletName } from "../format.js";
import { Link } from "../router.js";
import { canDo, useSignedIn } from "../session.js";
import type { SubAccount } from "../types.js";
import { StatusBadge } from "../ui.js";
import { priceWords } from "./subaccount-price.js";
import { trailLink, treeLink } from "./subaccount-trail.js";

export const WALLETS = ["sms", "international", "whatsapp", "email", "voice"] as const;

/** A sub-account's wallets: SMS always, the others where they hold credits. */
function walletsOf(sub: SubAccount): string {
  return WALLETS.filter((wallet) => wallet === "sms" || sub.balances[wallet] !== 0)
    .map((wallet) => `${walletName(wallet)} ${formatNumber(sub.balances[wallet])}`)
    .join(" · ");
}

/** The rows of a sub-accounts list priced below their parent, as BelowParentNotice lists them. */
export function belowParentOf(subs: readonly SubAccount[]): { username: string; message: string }[] {
  return subs.flatMap((sub) =>
    sub.below_parent ? [{ username: sub.username, message: sub.below_parent.message }] : [],
  );
}

/** What the row links to of the sub-account's own: its messages, refused sends and (developers') SMPP binds. */
function ActivityLinks({ sub, trail }: { sub: SubAccount; trail: readonly string[] }) {
  const session = useSignedIn();
  const its = [...trail, sub.username];
  const of = <span className="visually-hidden"> of {sub.username}</span>;
  // Each link's words kept on one line: a narrow column breaks between the links instead.
  return (
    <>
      <Link to={trailLink("/messages", its)}>Messages{of}</Link> ·{" "}
      <Link to={trailLink("/refusals", its)}>
        {"Refused\u00a0sends"}
        {of}
      </Link>
      {canDo(session, "develop") ? (
        <>
          {" "}
          ·{" "}
          <Link to={trailLink("/settings/smpp", its)}>
            {"SMPP\u00a0binds"}
            {of}
          </Link>
        </>
      ) : null}
    </>
  );
}

export interface ExtraColumn {
  header: string;
  cell: (sub: SubAccount) => ReactNode;
}

export function SubAccountTable({
  subs,
  trail,
  extra = [],
}: {
  subs: readonly SubAccount[];
  /** The accounts from the first level below the reader down to the one whose list this is. */
  trail: readonly string[];
  extra?: readonly ExtraColumn[];
}) {
  const session = useSignedIn();
  const parent = trail.at(-1);
  const whose = parent === undefined ? "your" : `${parent}'s`;
  return (
    <div className="table-wrap">
      <table>
        <caption>{parent === undefined ? "Sub-accounts" : `${parent}'s sub-accounts`}, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Username</th>
            <th scope="col">State</th>
            <th scope="col">Price</th>
            <th scope="col">Credits</th>
            <th scope="col">Sub-accounts</th>
            <th scope="col">Created</th>
            {canDo(session, "read") ? <th scope="col">Activity</th> : null}
            {extra.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {subs.map((sub) => (
            <tr key={sub.username} data-testid={`sub-${sub.username}`}>
              <td>
                {canDo(session, "read") ? (
                  <Link to={trailLink("/messages", [...trail, sub.username])}>{sub.username}</Link>
                ) : (
                  sub.username
                )}
              </td>
              <td>
                <StatusBadge status={sub.status} />
              </td>
              <td data-testid={`price-${sub.username}`}>
                {priceWords(sub, whose)}
                {sub.below_parent ? (
                  <>
                    {" "}
                    <span className="badge status-failed" title={sub.below_parent.message}>
                      below {whose} price
                    </span>
                  </>
                ) : null}
              </td>
              <td data-testid={`credits-${sub.username}`}>{walletsOf(sub)}</td>
              <td data-testid={`subs-of-${sub.username}`}>
                {sub.subaccounts === 0 ? (
                  "none"
                ) : (
                  <Link to={treeLink([...trail, sub.username])}>
                    {formatNumber(sub.subaccounts)}
                    <span className="visually-hidden">
                      {" "}
                      {sub.subaccounts === 1 ? "sub-account" : "sub-accounts"} of {sub.username}
                    </span>
                  </Link>
                )}
              </td>
              <td>{formatTime(sub.created_at, session.time_zone)}</td>
              {canDo(session, "read") ? (
                <td data-testid={`activity-${sub.username}`}>
                  <ActivityLinks sub={sub} trail={trail} />
                </td>
              ) : null}
              {extra.map((column) => (
                <td key={column.header}>{column.cell(sub)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
