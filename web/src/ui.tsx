// The console's small set of building blocks: an error told in words with its code, a busy
// note, a pager, a labelled field. Plain elements with labels and roles, no framework.
import type { ReactNode } from "react";
import { describeError, type PageMeta } from "./api.js";

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

export function Success({ children }: { children: ReactNode }) {
  return (
    <div className="notice success" role="status">
      {children}
    </div>
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

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}

export function PageTitle({ children }: { children: ReactNode }) {
  return <h1 tabIndex={-1}>{children}</h1>;
}
