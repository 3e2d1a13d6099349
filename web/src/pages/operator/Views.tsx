// Operators' read-only views of accounts' consoles ("View as this account"), newest first: who
// looked at which account, when, from where, and when the view ended (GET /admin/api/account-views).
import { useQuery } from "@tanstack/react-query";
import { data, withQuery } from "../../api.js";
import { formatTime } from "../../format.js";
import type { AccountView } from "../../operator-types.js";
import { Link } from "../../router.js";
import { useSignedIn } from "../../session.js";
import { Busy, ErrorNotice, Pager, PageTitle, useClientPages } from "../../ui.js";

/** The recent views, of one account or of all. */
export function ViewsTable({ account, caption }: { account?: string; caption: string }) {
  const session = useSignedIn();
  const views = useQuery({
    queryKey: ["operator", "account-views", account ?? ""],
    queryFn: () => data<AccountView[]>(withQuery("/admin/api/account-views", { account, limit: 200 })),
  });
  const pages = useClientPages(views.data, 20);
  const tz = session.time_zone;
  return (
    <>
      <ErrorNotice error={views.error} />
      {views.isPending ? <Busy /> : null}
      {views.data ? (
        <div className="table-wrap">
          <table data-testid="account-views">
            <caption>{caption}</caption>
            <thead>
              <tr>
                <th scope="col">Opened</th>
                <th scope="col">Account</th>
                <th scope="col">Operator</th>
                <th scope="col">From</th>
                <th scope="col">Closed</th>
              </tr>
            </thead>
            <tbody>
              {pages.rows.map((view) => (
                <tr key={view.id}>
                  <td>{formatTime(view.started_at, tz)}</td>
                  <td>
                    <Link to={`/operator/accounts/${encodeURIComponent(view.account)}`}>{view.account}</Link>
                  </td>
                  <td>{view.viewer}</td>
                  <td>{view.address}</td>
                  <td>{view.ended_at ? formatTime(view.ended_at, tz) : "still open"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {views.data?.length === 0 ? <p>No views yet.</p> : null}
      <Pager meta={pages.meta} onPage={pages.setPage} />
    </>
  );
}

export default function AccountViews() {
  return (
    <>
      <PageTitle>Account views</PageTitle>
      <p>Every time an operator opened an account's console read-only ("View as this account").</p>
      <ViewsTable caption="The last 200 views, newest first" />
    </>
  );
}
