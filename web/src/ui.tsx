// The console's small set of building blocks: an error told in words with its code, a busy
// note, a pager, a labelled field. Plain elements with labels and roles, no framework.
import { type ReactNode, useState } from "react";
import { describeError, type PageMeta } from "./api.js";
import { formatNumber, formatTime } from "./format.js";
import { Link } from "./router.js";
import { ACCOUNT_USER_ROLES, type Capability, type CreditEntry, ROLE_CAPABILITIES } from "./types.js";

export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const { message, code } = describeError(error);
  return (
    <div className="notice error" role="alert">
      {title ? <strong>{title}: </strong> : null}
      <span className="error-message">{message}</span> <code className="error-code">{code}</code>
    </div>
  );
}

/**
 * In place of a form the signed-in role may not use: who may (the roles the server's table gives
 * `capability`), so a read-only user is not offered a form the API would refuse.
 */
export function RoleNote({ role, what, capability }: { role: string; what: string; capability: Capability }) {
  const may = ACCOUNT_USER_ROLES.filter((r) => ROLE_CAPABILITIES[r].includes(capability));
  return (
    <p className="hint" data-testid="role-note">
      Your role ({role}) reads this page; {what} is for {may.slice(0, -1).join(", ")} or {may.at(-1)} users.
    </p>
  );
}

export function Success({ children }: { children: ReactNode }) {
  return (
    <div className="notice success" role="status">
      {children}
    </div>
  );
}

/** A key just made: its only showing (the gateway keeps a hash), `owner` named when not the caller's. */
export function NewKeyNotice({ apiKey, owner, testId }: { apiKey: string; owner?: string; testId: string }) {
  return (
    <Success>
      New key{owner ? ` for ${owner}` : ""} (shown only now; copy it):
      <code className="secret" data-testid={testId}>
        {apiKey}
      </code>
    </Success>
  );
}

export function Busy({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="busy" role="status" aria-live="polite">
      {label}
    </p>
  );
}

/** Page numbers for the v2 lists' `meta`. */
export function Pager({ meta, onPage }: { meta: PageMeta | undefined; onPage: (page: number) => void }) {
  if (!meta) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={meta.page <= 1} onClick={() => onPage(meta.page - 1)}>
        Previous
      </button>
      <span>
        Page {meta.page} of {meta.last_page} ({meta.total} in all)
      </span>
      <button type="button" disabled={meta.page >= meta.last_page} onClick={() => onPage(meta.page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function Field({
  label,
  id,
  hint,
  children,
}: {
  label: string;
  id: string;
  hint?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {hint ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span className={`badge status-${status}`} data-testid={testId}>
      {status}
    </span>
  );
}

/** A rejected item's reason from the operator (rejection_reason), under its status; nothing otherwise. */
export function RejectionReason({ row }: { row: { status: string; rejection_reason?: string | null } }) {
  if (row.status !== "rejected" || !row.rejection_reason) return null;
  return (
    <p className="hint" data-testid="rejection-reason">
      Reason: {row.rejection_reason}
    </p>
  );
}

export function PageTitle({ children }: { children: ReactNode }) {
  return <h1 tabIndex={-1}>{children}</h1>;
}

/** One page of a list the API answers whole (short lists: registrations, routes, a ledger's last entries). */
export function useClientPages<T>(items: readonly T[] | undefined, perPage = 25) {
  const [page, setPage] = useState(1);
  const total = items?.length ?? 0;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const current = Math.min(page, lastPage);
  return {
    rows: (items ?? []).slice((current - 1) * perPage, current * perPage),
    meta: items ? { page: current, per_page: perPage, total, last_page: lastPage } : undefined,
    setPage,
  };
}

/** A labelled progress bar (an upload, a job) with its figures in words beside it. */
export function Progress({
  id,
  label,
  value,
  max,
  children,
}: {
  id: string;
  label: string;
  value: number;
  max: number;
  children?: ReactNode;
}) {
  return (
    <div className="progress">
      <label htmlFor={id}>{label}</label>
      <progress id={id} value={value} max={Math.max(max, 1)} />
      {children ? <p className="hint">{children}</p> : null}
    </div>
  );
}

/** Ledger entries in the order given: when (in `timeZone`), wallet, kind, amount, balance after, note. */
/** A message's queue id (`q` + ULID): a ledger entry's `ref` that names one message (a refund's, a WhatsApp debit's). */
const MESSAGE_ID = /^q[0-9A-HJKMNP-TV-Z]{26}$/i;

export function LedgerTable({
  entries,
  caption,
  timeZone,
  messagePath,
}: {
  /** The operator's entries carry `ref`: shown in a Ref column when `messagePath` is given, else when an entry has no note. */
  entries: readonly (CreditEntry & { ref?: string | null })[];
  caption: string;
  timeZone: string;
  /** Where a message's page is (`/operator/messages/`): the Ref column, a message id linked to its page. */
  messagePath?: string;
}) {
  return (
    <div className="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Wallet</th>
            <th scope="col">Kind</th>
            <th scope="col">Amount</th>
            <th scope="col">Balance after</th>
            {messagePath === undefined ? null : <th scope="col">Ref</th>}
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>{formatTime(entry.created_at, timeZone)}</td>
              <td>{entry.wallet}</td>
              <td>{entry.kind}</td>
              <td>{formatNumber(entry.amount)}</td>
              <td>{formatNumber(entry.balance_after)}</td>
              {messagePath === undefined ? null : (
                <td className="text-cell">
                  {entry.ref && MESSAGE_ID.test(entry.ref) ? (
                    <Link to={`${messagePath}${encodeURIComponent(entry.ref)}`}>{entry.ref}</Link>
                  ) : (
                    (entry.ref ?? "")
                  )}
                </td>
              )}
              <td className="text-cell">
                {messagePath === undefined ? (entry.note ?? entry.ref ?? "") : (entry.note ?? "")}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A button whose action is hard to undo: the first click says what will happen and asks again. */
export function ConfirmButton({
  label,
  confirmLabel,
  warning,
  onConfirm,
  danger = false,
  disabled = false,
}: {
  /** The button's text; a long name in it may be visually hidden (the row shows it) and still name the button. */
  label: ReactNode;
  confirmLabel: string;
  warning: ReactNode;
  onConfirm: () => void;
  danger?: boolean;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        className={danger ? "danger" : undefined}
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <div className="notice">
      <p>{warning}</p>
      <div className="actions">
        <button
          type="button"
          className={danger ? "danger" : "primary"}
          disabled={disabled}
          onClick={() => {
            setAsking(false);
            onConfirm();
          }}
        >
          {confirmLabel}
        </button>
        <button type="button" onClick={() => setAsking(false)}>
          Keep it as it is
        </button>
      </div>
    </div>
  );
}

/**
 * Previous and Next of a list read by cursor (GET …?cursor=): `cursors` are the pages' cursors so
 * far (the last one the page shown), `next` the list's next_cursor.
 */
export function CursorPager({
  cursors,
  setCursors,
  next,
}: {
  cursors: string[];
  setCursors: (cursors: string[]) => void;
  next: string | null;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
        Previous
      </button>
      <span>Page {cursors.length + 1}</span>
      <button type="button" disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
        Next
      </button>
    </nav>
  );
}
