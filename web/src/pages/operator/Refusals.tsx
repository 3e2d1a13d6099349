// GET /admin/api/refusals: every account's refused sends (or one account's; "-" for requests
// without valid credentials), with the account page's filters and cards (../Refusals.tsx), and
// the username a password login named (a wrong password's refusal is found by it).

import { FilterForm, useQueryFilters } from "../../filters.js";
import type { OperatorRefusalPage } from "../../operator-types.js";
import { Link } from "../../router.js";
import { PageTitle } from "../../ui.js";
import { REFUSAL_FILTERS, RefusalList } from "../Refusals.js";

const FILTERS = [
  { name: "account", label: "Account", type: "search", hint: "A username, or - for unauthenticated" },
  { name: "username", label: "Username", type: "search", hint: "The one a password login named, signed in or not" },
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
        key={`form ${JSON.stringify(filters)}`}
      />
      <RefusalList<Row>
        path="/admin/api/refusals"
        query={filters}
        key={`list ${JSON.stringify(filters)}`}
        accountOf={(row) =>
          row.account ? (
            <Link to={`/operator/accounts/${encodeURIComponent(row.account)}`}>{row.account}</Link>
          ) : row.username ? (
            `— (not authenticated as ${row.username})`
          ) : (
            "— (not authenticated)"
          )
        }
      />
    </>
  );
}
