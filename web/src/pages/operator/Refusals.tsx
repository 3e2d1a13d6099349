// GET /admin/api/refusals: every account's refused sends (or one account's; "-" for requests
// without valid credentials), with the account page's filters and cards (../Refusals.tsx).

import type { OperatorRefusalPage } from "../../operator-types.js";
import { Link } from "../../router.js";
import { Field, PageTitle } from "../../ui.js";
import { RefusalFilters, RefusalList, useRefusalFilters } from "../Refusals.js";

type Row = OperatorRefusalPage["data"][number];

export default function OperatorRefusals() {
  const filters = useRefusalFilters();
  return (
    <>
      <PageTitle>Refusals</PageTitle>
      <p>Refused sends of every account, newest first. Account "-" lists requests without valid credentials.</p>
      <RefusalFilters page="/operator/refusals" filters={filters} key={JSON.stringify(filters)}>
        {(draft, set) => (
          <Field label="Account" id="refusal-account" hint="A username, or - for unauthenticated">
            <input
              id="refusal-account"
              type="search"
              value={draft.account}
              aria-describedby="refusal-account-hint"
              onChange={(event) => set({ ...draft, account: event.target.value })}
            />
          </Field>
        )}
      </RefusalFilters>
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
