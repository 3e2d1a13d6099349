// GET /api/v2/refusals: the account's refused sends, newest first, with the filters (from, to,
// error code, recipient) and cursor pages; each refusal a card (what was asked, the answer as
// its family wrote it, why), so the page reads on a phone without scrolling sideways. The
// operator's page (operator/Refusals.tsx) uses the same filters and cards.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { request, withQuery } from "../api.js";
import { formatTime, zoneLabel } from "../format.js";
import { navigate, useLocation } from "../router.js";
import { useSignedIn } from "../session.js";
import type { Refusal, RefusalPage } from "../types.js";
import { Busy, CursorPager, ErrorNotice, Field, PageTitle } from "../ui.js";

const PAGE = 25;
const FILTERS = ["from", "to", "code", "recipient"] as const;
type Filters = Record<(typeof FILTERS)[number] | "account", string>;

/** The filters the URL holds (the page's own query string). */
export function useRefusalFilters(): Filters {
  const { query } = useLocation();
  return {
    from: query.get("from") ?? "",
    to: query.get("to") ?? "",
    code: query.get("code") ?? "",
    recipient: query.get("recipient") ?? "",
    account: query.get("account") ?? "",
  };
}

/** The filter form; Search puts the filters in the URL of `page`. */
export function RefusalFilters({
  page,
  filters,
  children,
}: {
  page: string;
  filters: Filters;
  children?: (draft: Filters, set: (draft: Filters) => void) => ReactNode;
}) {
  const [draft, setDraft] = useState(filters);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    navigate(withQuery(page, draft));
  };
  const input = (name: (typeof FILTERS)[number], label: string, type = "text", hint?: string) => (
    <Field label={label} id={`refusal-${name}`} {...(hint ? { hint } : {})}>
      <input
        id={`refusal-${name}`}
        type={type}
        value={draft[name]}
        {...(hint ? { "aria-describedby": `refusal-${name}-hint` } : {})}
        onChange={(event) => setDraft({ ...draft, [name]: event.target.value })}
      />
    </Field>
  );
  return (
    <form className="filters" onSubmit={apply} aria-label="Filter refusals">
      {children?.(draft, setDraft)}
      {input("recipient", "Recipient", "search")}
      {input("code", "Error code", "text", "e.g. dlt_template_mismatch")}
      {input("from", "From (date)", "date")}
      {input("to", "To (date)", "date")}
      <button type="submit" className="primary">
        Search
      </button>
    </form>
  );
}

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
          <code>{refusal.answer}</code> <span className="hint">{refusal.code}</span>
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

/** A page of refusals from `path` (a v2 or operator list), with Previous and Next. */
export function RefusalList<R extends Refusal>({
  path,
  query,
  accountOf,
}: {
  path: string;
  query: Record<string, string>;
  accountOf?: (refusal: R) => ReactNode;
}) {
  const session = useSignedIn();
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const url = withQuery(path, { ...query, limit: PAGE, cursor });
  const list = useQuery({
    queryKey: ["refusals", url],
    queryFn: () => request<{ data: R[]; meta: RefusalPage["meta"] }>(url),
  });
  return (
    <>
      <ErrorNotice error={list.error} />
      {list.isPending ? <Busy /> : null}
      {list.data ? (
        <>
          <p className="hint">Newest first; times in {zoneLabel(session.time_zone)}.</p>
          <ul className="plain refusals" aria-label="Refused sends">
            {list.data.data.map((refusal) => (
              <RefusalCard
                key={refusal.id}
                refusal={refusal}
                timeZone={session.time_zone}
                account={accountOf?.(refusal)}
              />
            ))}
          </ul>
          {list.data.data.length === 0 ? <p>No refusals match.</p> : null}
          <CursorPager cursors={cursors} setCursors={setCursors} next={list.data.meta.next_cursor} />
        </>
      ) : null}
    </>
  );
}

export default function Refusals() {
  const filters = useRefusalFilters();
  const { account: _account, ...query } = filters;
  return (
    <>
      <PageTitle>Refusals</PageTitle>
      <p>
        Sends the gateway refused, from every API and SMPP, with the answer your client got and why. Kept 30 days by
        default.
      </p>
      <RefusalFilters page="/refusals" filters={filters} key={JSON.stringify(filters)} />
      <RefusalList path="/api/v2/refusals" query={query} key={JSON.stringify(query)} />
    </>
  );
}
