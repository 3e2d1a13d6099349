// GET /api/v2/refusals: the account's refused sends, newest first, with the filters (from, to,
// error code, recipient) and cursor pages; each refusal a card (what was asked, the answer as
// its family wrote it, why), so the page reads on a phone without scrolling sideways. The
// operator's page (operator/Refusals.tsx) uses the same filters and cards. ?subaccount= (a
// reseller's link from Sub-accounts or a sub-account's messages, `via` the levels above it) lists
// that sub-account's refusals instead, under its trail from the top (the levels the list's answer
// names, without `via` too), with the way back to the list of sub-accounts that holds it (with
// `back=own`, its own list the link came from). A blank ?subaccount= is the reader's own list.
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { request, withQuery } from "../api.js";
import { CursorList, type FilterField, FilterForm, type Filters, useQueryFilters } from "../filters.js";
import { formatTime, zoneLabel } from "../format.js";
import { Link, useLocation } from "../router.js";
import { useSignedIn } from "../session.js";
import type { Refusal, RefusalPage } from "../types.js";
import { PageTitle } from "../ui.js";
import { BackToTree, ofSubAccount, subaccountOf, TreeTrail, trailLink, useTrail, viaPath } from "./subaccount-trail.js";

const PAGE = 25;
const LIST = "/api/v2/refusals";

export const REFUSAL_FILTERS: readonly FilterField[] = [
  { name: "recipient", label: "Recipient", type: "search" },
  { name: "code", label: "Error code", hint: "e.g. dlt_template_mismatch" },
  { name: "from", label: "From (date)", type: "date" },
  { name: "to", label: "To (date)", type: "date" },
];

/** One refusal as a card: when, what was asked, the answer as written, why. */
function RefusalCard({ refusal, timeZone, account }: { refusal: Refusal; timeZone: string; account?: ReactNode }) {
  const more = refusal.recipient_count - refusal.recipients.length;
  return (
    <li className="card refusal">
      <dl className="facts">
        <dt>When</dt>
        <dd>{formatTime(refusal.at, timeZone)}</dd>
        {account ? (
          <>
            <dt>Account</dt>
            <dd>{account}</dd>
          </>
        ) : null}
        <dt>Answer</dt>
        <dd>
          <code>{refusal.answer}</code>
          {/* v2 answers carry the code already ("422 dnd_blocked"); a legacy one (-11) does not. */}
          {refusal.answer.includes(refusal.code) ? null : <span className="hint"> {refusal.code}</span>}
        </dd>
        <dt>Why</dt>
        <dd className="text-cell">{refusal.reason}</dd>
        <dt>Asked</dt>
        <dd>
          {refusal.family} · <code>{refusal.operation}</code>
        </dd>
        <dt>To</dt>
        <dd className="text-cell">
          {refusal.recipients.join(", ") || "—"}
          {more > 0 ? ` and ${more} more` : ""}
        </dd>
        <dt>Sender</dt>
        <dd>{refusal.sender ?? "—"}</dd>
        <dt>Text</dt>
        <dd className="text-cell">{refusal.text ?? "—"}</dd>
        <dt>Request</dt>
        <dd className="text-cell">
          <code>{refusal.request_id}</code> from {refusal.address}
        </dd>
      </dl>
    </li>
  );
}

/**
 * Under a message search by number (the account's or the operator's): a send the gateway refused
 * never became a message, so a support person who finds none is pointed at the refusals to it.
 */
export function RefusedSendsNote({
  recipient,
  found,
  refusals,
}: {
  recipient: string;
  found: boolean;
  refusals: string;
}) {
  return (
    <p data-testid="refused-sends">
      {found ? "" : "No messages match. "}A send the gateway refused (DND, DLT, credits, a bad number…) is not a
      message: <Link to={refusals}>refused sends to {recipient}</Link>.
    </p>
  );
}

/** A page of refusals from `path` (a v2 or operator list), with Previous and Next. */
export function RefusalList<R extends Refusal>({
  path,
  query,
  accountOf,
}: {
  path: string;
  query: Filters;
  accountOf?: (refusal: R) => ReactNode;
}) {
  const session = useSignedIn();
  return (
    <CursorList<R> path={path} query={query} limit={PAGE}>
      {(refusals) => (
        <>
          <p className="hint">Newest first; times in {zoneLabel(session.time_zone)}.</p>
          <ul className="plain refusals" aria-label="Refused sends">
            {refusals.map((refusal) => (
              <RefusalCard
                key={refusal.id}
                refusal={refusal}
                timeZone={session.time_zone}
                account={accountOf?.(refusal)}
              />
            ))}
          </ul>
          {refusals.length === 0 ? <p>No refusals match.</p> : null}
        </>
      )}
    </CursorList>
  );
}

export default function Refusals() {
  // The form keeps `subaccount` as it is (no field of its own), and its page the trail's `via`: a
  // search stays in the sub-account's, and its way back where it was.
  const { subaccount: _, ...own } = useQueryFilters([...REFUSAL_FILTERS.map((field) => field.name), "subaccount"]);
  const sub = subaccountOf(useLocation().query);
  const filters: Filters = sub ? { ...own, subaccount: sub } : own;
  // The list's first page as CursorList reads it (the same key: one request), for the levels above the account.
  const first = withQuery(LIST, { ...filters, limit: PAGE });
  const firstPage = useQuery({
    queryKey: [LIST, first],
    queryFn: () => request<RefusalPage>(first),
    enabled: sub !== "",
  });
  const { trail, wayBack, known } = useTrail(firstPage);
  return (
    <>
      <PageTitle>{sub ? `Refusals of ${sub}` : "Refusals"}</PageTitle>
      {trail.length > 0 && known ? <TreeTrail trail={trail} page="refused sends" /> : null}
      {sub && known ? (
        <p data-testid="subaccount-filter">
          {ofSubAccount(trail, "refused sends")} · <Link to={trailLink("/messages", trail, wayBack)}>its messages</Link>{" "}
          · <BackToTree trail={trail} wayBack={wayBack} /> · <Link to="/refusals">Your own refusals</Link>
        </p>
      ) : null}
      <p>
        Sends the gateway refused, from every API and SMPP, with the answer {sub ? "its" : "your"} client got and why.
        Kept 30 days by default.
      </p>
      <FilterForm
        page={viaPath("/refusals", trail, wayBack)}
        filters={filters}
        fields={REFUSAL_FILTERS}
        idPrefix="refusal"
        label="Filter refusals"
        key={`form ${JSON.stringify(filters)}`}
      />
      <RefusalList path={LIST} query={filters} key={`list ${JSON.stringify(filters)}`} />
    </>
  );
}
