// GET /admin/api/audit: every account's audit log (or one account's), with the account page's
// filters, cards and export (../Audit.tsx), and the check of the log's hash chain.
import { useMutation } from "@tanstack/react-query";
import { data } from "../../api.js";
import type { AuditVerification } from "../../operator-types.js";
import { Link } from "../../router.js";
import { ErrorNotice, Field, PageTitle } from "../../ui.js";
import { AuditFilters, AuditList, useAuditFilters } from "../Audit.js";

function ChainCheck() {
  const check = useMutation({ mutationFn: () => data<AuditVerification>("/admin/api/audit/verify") });
  const report = check.data;
  return (
    <section aria-label="Hash chain">
      <p className="actions">
        <button type="button" onClick={() => check.mutate()} disabled={check.isPending}>
          Verify the chain
        </button>
      </p>
      <ErrorNotice error={check.error} />
      {report ? (
        <p role="status" className="text-cell">
          {report.broken
            ? `Broken at entry ${report.broken.seq}: ${report.broken.reason}.`
            : `Intact: ${report.entries} entries, head ${report.head.seq} ${report.head.hash}.`}
        </p>
      ) : null}
    </section>
  );
}

export default function OperatorAudit() {
  const filters = useAuditFilters();
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p>Every change by operators, accounts and the command line, newest first.</p>
      <ChainCheck />
      <AuditFilters page="/operator/audit" filters={filters} key={JSON.stringify(filters)}>
        {(draft, set) => (
          <Field label="Account" id="audit-account" hint="Changes to it and by it">
            <input
              id="audit-account"
              type="search"
              value={draft.account ?? ""}
              aria-describedby="audit-account-hint"
              onChange={(event) => set({ ...draft, account: event.target.value })}
            />
          </Field>
        )}
      </AuditFilters>
      <AuditList
        path="/admin/api/audit"
        query={filters}
        key={JSON.stringify(filters)}
        accountOf={(entry) =>
          entry.account ? (
            <Link to={`/operator/accounts/${encodeURIComponent(entry.account)}`}>{entry.account}</Link>
          ) : (
            "— (the gateway's own)"
          )
        }
      />
    </>
  );
}
