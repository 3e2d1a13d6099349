// GET /api/v2/audit: the account's audit log, newest first, with the filters (from, to, action,
// actor, target), cursor pages and the export; each entry a card (when, who, from where, what,
// before → after), so the page reads on a phone. The operator's page (operator/Audit.tsx) uses the
// same filters, cards and list.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { request, withQuery } from "../api.js";
import { ExportLinks } from "../exports.js";
import { formatTime, zoneLabel } from "../format.js";
import { navigate, useLocation } from "../router.js";
import { useSignedIn } from "../session.js";
import type { AuditEntry, AuditPage } from "../types.js";
import { Busy, CursorPager, ErrorNotice, Field, PageTitle } from "../ui.js";

const PAGE = 25;
const FILTERS = ["action", "actor", "target", "from", "to"] as const;
type Filters = Record<(typeof FILTERS)[number] | "account", string>;

/** The filters the URL holds (the page's own query string); empty ones left out. */
export function useAuditFilters(): Partial<Filters> {
  const { query } = useLocation();
  return Object.fromEntries(
    [...FILTERS, "account"].flatMap((name) => {
      const value = query.get(name);
      return value ? [[name, value]] : [];
    }),
  );
}

/** The filter form; Search puts the filters in the URL of `page`. */
export function AuditFilters({
  page,
  filters,
  children,
}: {
  page: string;
  filters: Partial<Filters>;
  children?: (draft: Partial<Filters>, set: (draft: Partial<Filters>) => void) => ReactNode;
}) {
  const [draft, setDraft] = useState(filters);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    navigate(withQuery(page, draft));
  };
  const input = (name: (typeof FILTERS)[number], label: string, type = "text", hint?: string) => (
    <Field label={label} id={`audit-${name}`} {...(hint ? { hint } : {})}>
      <input
        id={`audit-${name}`}
        type={type}
        value={draft[name] ?? ""}
        {...(hint ? { "aria-describedby": `audit-${name}-hint` } : {})}
        onChange={(event) => setDraft({ ...draft, [name]: event.target.value })}
      />
    </Field>
  );
  return (
    <form className="filters" onSubmit={apply} aria-label="Filter the audit log">
      {children?.(draft, setDraft)}
      {input("action", "Action", "text", "e.g. credits or template.approve")}
      {input("actor", "Actor", "search", "A username, or cli")}
      {input("target", "Target", "search")}
      {input("from", "From (date)", "date")}
      {input("to", "To (date)", "date")}
      <button type="submit" className="primary">
        Search
      </button>
    </form>
  );
}

const asText = (value: unknown) => (value === null || value === undefined ? "—" : JSON.stringify(value));

/** One entry as a card: when, who, how, from where, what, before → after. */
function AuditCard({ entry, timeZone, account }: { entry: AuditEntry; timeZone: string; account?: ReactNode }) {
  const who = entry.actor_user ? `${entry.actor} (${entry.actor_user})` : entry.actor;
  return (
    <li className="card audit-entry">
      <dl className="facts">
        <dt>When</dt>
        <dd>
          {formatTime(entry.at, timeZone)} <span className="hint">#{entry.seq}</span>
        </dd>
        <dt>Action</dt>
        <dd>
          <code>{entry.action}</code> {entry.target}
        </dd>
        {account ? (
          <>
            <dt>Account</dt>
            <dd>{account}</dd>
          </>
        ) : null}
        <dt>Who</dt>
        <dd className="text-cell">
          {who} · {entry.channel}
          {entry.credential ? ` · ${entry.credential}` : ""}
          {entry.address ? ` from ${entry.address}` : ""}
        </dd>
        <dt>Before</dt>
        <dd className="text-cell">
          <code>{asText(entry.before)}</code>
        </dd>
        <dt>After</dt>
        <dd className="text-cell">
          <code>{asText(entry.after)}</code>
        </dd>
      </dl>
    </li>
  );
}

/** A page of entries from `path` (the v2 or the operator's list), with Previous and Next. */
export function AuditList({
  path,
  query,
  accountOf,
}: {
  path: string;
  query: Partial<Filters>;
  accountOf?: (entry: AuditEntry) => ReactNode;
}) {
  const session = useSignedIn();
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const url = withQuery(path, { ...query, limit: PAGE, cursor });
  const list = useQuery({ queryKey: ["audit", url], queryFn: () => request<AuditPage>(url) });
  return (
    <>
      <ErrorNotice error={list.error} />
      {list.isPending ? <Busy /> : null}
      {list.data ? (
        <>
          <p className="hint">Newest first; times in {zoneLabel(session.time_zone)}.</p>
          <ul className="plain audit-entries" aria-label="Audit entries">
            {list.data.data.map((entry) => (
              <AuditCard key={entry.seq} entry={entry} timeZone={session.time_zone} account={accountOf?.(entry)} />
            ))}
          </ul>
          {list.data.data.length === 0 ? <p>No entries match.</p> : null}
          <CursorPager cursors={cursors} setCursors={setCursors} next={list.data.meta.next_cursor} />
        </>
      ) : null}
      <ExportLinks path={`${path}/export`} filters={query} what="These entries, oldest first" />
    </>
  );
}

export default function Audit() {
  const filters = useAuditFilters();
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p>
        Every change made to your account and by it: keys, webhooks, credits, approvals, its status, with who made it
        and from where.
      </p>
      <AuditFilters page="/audit" filters={filters} key={JSON.stringify(filters)} />
      <AuditList path="/api/v2/audit" query={filters} key={JSON.stringify(filters)} />
    </>
  );
}
