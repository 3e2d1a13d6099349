// GET /api/v2/audit: the account's audit log, newest first, with the filters (from, to, action,
// actor, actor_user, credential, target), cursor pages and the export; each entry a card (when, who,
// from where, what, and each field it changed, was → now), so the page reads on a phone; an entry's
// credential (the API key or session that acted) lists everything it did. The operator's page (operator/Audit.tsx) uses the
// same filters, cards and list.
import type { ReactNode } from "react";
import { withQuery } from "../api.js";
import { ExportLinks } from "../exports.js";
import { CursorList, type FilterField, FilterForm, type Filters, useQueryFilters } from "../filters.js";
import { formatInstantsIn, formatTime, zoneLabel } from "../format.js";
import { Link } from "../router.js";
import { useSignedIn } from "../session.js";
import type { AuditEntry } from "../types.js";
import { PageTitle } from "../ui.js";

const PAGE = 25;

/** The filters of the account's log; the operator's adds `account` (ACCOUNT_FILTER). */
export const AUDIT_FILTERS: readonly FilterField[] = [
  { name: "action", label: "Action", hint: "e.g. credits or template.approve" },
  { name: "actor", label: "Actor", type: "search", hint: "A username, or cli" },
  { name: "actor_user", label: "Login", type: "search", hint: "The staff member or team user who acted" },
  {
    name: "credential",
    label: "Credential",
    type: "search",
    hint: "What acted: key:12 (an API key), session:… (a console sign-in) or user@host (the command line)",
  },
  { name: "target", label: "Target", type: "search" },
  { name: "from", label: "From (date)", type: "date" },
  { name: "to", label: "To (date)", type: "date" },
];

/** A value as the page writes it: its instants in the page's zone, an empty list as "none". */
function asText(value: unknown, timeZone: string): string {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value) && value.length === 0) return "none";
  return formatInstantsIn(typeof value === "string" ? value : JSON.stringify(value), timeZone);
}

/** A field's name as a label: "created_at" → "Created at". */
const fieldLabel = (field: string) => {
  const words = field.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What an entry changed, field by field: each field whose value differs, as it was and as it is
 * (a field both sides hold alike is left out, so a full snapshot reads as its change alone).
 */
function changedFields(before: unknown, after: unknown): { field: string; was?: unknown; now?: unknown }[] {
  if (!isRecord(before) && !isRecord(after)) return [];
  const was = isRecord(before) ? before : {};
  const now = isRecord(after) ? after : {};
  return [...new Set([...Object.keys(was), ...Object.keys(now)])]
    .filter((field) => JSON.stringify(was[field]) !== JSON.stringify(now[field]))
    .map((field) => ({
      field,
      ...(field in was ? { was: was[field] } : {}),
      ...(field in now ? { now: now[field] } : {}),
    }));
}

/** The entry's change as a list of fields, "was → now"; the whole before and after when they are not objects. */
export function Changes({ entry, timeZone }: { entry: Pick<AuditEntry, "before" | "after">; timeZone: string }) {
  const fields = changedFields(entry.before, entry.after);
  if (fields.length === 0) {
    return (
      <code>
        {asText(entry.before, timeZone)} → {asText(entry.after, timeZone)}
      </code>
    );
  }
  return (
    <div className="changes" data-testid="audit-changes">
      {fields.map(({ field, was, now }) => (
        <p key={field}>
          <span className="field-name">{fieldLabel(field)}</span>:{" "}
          {was !== undefined ? <span className="was">{asText(was, timeZone)}</span> : null}
          {was !== undefined && now !== undefined ? " → " : null}
          {now !== undefined ? <span>{asText(now, timeZone)}</span> : " (removed)"}
        </p>
      ))}
    </div>
  );
}

/** One entry as a card: when, who, how, from where, what, before → after. */
function AuditCard({
  entry,
  timeZone,
  account,
  byCredential,
}: {
  entry: AuditEntry;
  timeZone: string;
  account?: ReactNode;
  /** The log filtered by a credential (everything a key did). */
  byCredential: (credential: string) => string;
}) {
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
          {entry.credential ? (
            <>
              {" · "}
              <Link to={byCredential(entry.credential)} title="Everything this credential did">
                {entry.credential}
              </Link>
            </>
          ) : (
            ""
          )}
          {entry.address ? ` from ${entry.address}` : ""}
        </dd>
        <dt>{entry.before === null ? "Made with" : entry.after === null ? "Removed" : "Changed"}</dt>
        <dd className="text-cell">
          <Changes entry={entry} timeZone={timeZone} />
        </dd>
      </dl>
    </li>
  );
}

/** A page of entries from `path` (the v2 or the operator's list), with Previous and Next. */
export function AuditList({
  path,
  page,
  query,
  accountOf,
}: {
  path: string;
  /** The console page of this list (its filters in the address). */
  page: string;
  query: Filters;
  accountOf?: (entry: AuditEntry) => ReactNode;
}) {
  const session = useSignedIn();
  return (
    <>
      <CursorList<AuditEntry> path={path} query={query} limit={PAGE}>
        {(entries) => (
          <>
            <p className="hint">Newest first; times in {zoneLabel(session.time_zone)}.</p>
            <ul className="plain audit-entries" aria-label="Audit entries">
              {entries.map((entry) => (
                <AuditCard
                  key={entry.seq}
                  entry={entry}
                  timeZone={session.time_zone}
                  account={accountOf?.(entry)}
                  byCredential={(credential) => withQuery(page, { ...query, credential })}
                />
              ))}
            </ul>
            {entries.length === 0 ? <p>No entries match.</p> : null}
          </>
        )}
      </CursorList>
      <ExportLinks path={`${path}/export`} filters={query} what="These entries, oldest first" />
    </>
  );
}

export default function Audit() {
  const filters = useQueryFilters(AUDIT_FILTERS.map((field) => field.name));
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p>
        Every change made to your account and by it: keys, webhooks, credits, approvals, its status, with who made it
        and from where.
      </p>
      <FilterForm
        page="/audit"
        filters={filters}
        fields={AUDIT_FILTERS}
        idPrefix="audit"
        label="Filter the audit log"
        key={`form ${JSON.stringify(filters)}`}
      />
      <AuditList path="/api/v2/audit" page="/audit" query={filters} key={`list ${JSON.stringify(filters)}`} />
    </>
  );
}
