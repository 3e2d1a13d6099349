// GET /admin/api/refusals: every account's refused sends (or one account's; "-" for requests
// without valid credentials), with the account page's filters and cards (../Refusals.tsx).

import { FilterForm, useQueryFilters } from "../../filters.js";
import type { OperatorRefusalPage } from "../../operator-types.js";
import { Link } from "../../router.js";
import { PageTitle } from "../../ui.js";
import { REFUSAL_FILTERS, RefusalList } from "../Refusals.js";

const FILTERS = [
  { name: "account", label: "Account", type: "search", hint: "A username, or - for unauthenticated" },
  ...REFUSAL_FILTERS,
] as const;

type Row = OperatorRefusalPage["data"][number];

export default function OperatorRefusals() {
  const filters = useQueryFilters(FILTERS.map((field) => field.name));
  return (
    <>
      <PageTitle>Refusals</PageTitle>
      <p>Refused sends of every account, newest first. Account "-" lists requests without valid credentials.</p>
      <FilterForm
        page="/operator/refusals"
        filters={filters}
        fields={FILTERS}
        idPrefix="refusal"
        label="Filter refusals"
        key={JSON.stringify(filters)}
      />
      <RefusalList<Row>
        path="/admin/api/refusals"
        query={filters}
        key={JSON.stringify(filters)}
        accountOf={(row) =>
          row.account ? (
            <Link to={`/operator/accounts/${encodeURIComponent(row.account)}`}>{row.account}</Link>
          ) : (
            "— (not authenticated)"
          )
        }
      />
    </>
  );
}
