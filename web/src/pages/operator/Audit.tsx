// GET /admin/api/audit: every account's audit log (or one account's), with the account page's
// filters, cards and export (../Audit.tsx), and the check of the log's hash chain.
import { useMutation } from "@tanstack/react-query";
import { data } from "../../api.js";
import { FilterForm, useQueryFilters } from "../../filters.js";
import type { AuditVerification } from "../../operator-types.js";
import { Link } from "../../router.js";
import { ErrorNotice, PageTitle } from "../../ui.js";
import { AUDIT_FILTERS, AuditList } from "../Audit.js";

const FILTERS = [
  { name: "account", label: "Account", type: "search", hint: "Changes to it and by it" },
  ...AUDIT_FILTERS,
] as const;

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
  const filters = useQueryFilters(FILTERS.map((field) => field.name));
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p>Every change by operators, accounts and the command line, newest first.</p>
      <ChainCheck />
      <FilterForm
        page="/operator/audit"
        filters={filters}
        fields={FILTERS}
        idPrefix="audit"
        label="Filter the audit log"
        key={`form ${JSON.stringify(filters)}`}
      />
      <AuditList
        path="/admin/api/audit"
        page="/operator/audit"
        query={filters}
        key={`list ${JSON.stringify(filters)}`}
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
