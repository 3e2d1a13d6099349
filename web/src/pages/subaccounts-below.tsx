// The sub-accounts of an account below the signed-in reseller (GET /api/v2/subaccounts?subaccount=,
// any depth): read only, since each is managed by its own parent. The trail names the levels
// from the reseller's own list down to it (the API's `subaccount_via`, useTrail), each a link back up; a name opens its messages (its row
// its refused sends and SMPP binds too), a count of sub-accounts the next level down. The line
// above the table opens the account's own messages, refused sends and binds, which lead back here.
// Another tree's name is the API's 404, in words.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { paged } from "../api.js";
import { BelowParentNotice } from "../below-parent.js";
import { Link } from "../router.js";
import { canDo, useSignedIn } from "../session.js";
import type { SubAccount } from "../types.js";
import { Busy, ErrorNotice, Pager, PageTitle } from "../ui.js";
import { belowParentOf, SubAccountTable } from "./subaccount-table.js";
import { TreeTrail, trailLink, useTrail } from "./subaccount-trail.js";

const PER_PAGE = 25;

/** The sub-accounts of `account` (the page's `?subaccount=`), an account below the reader. */
export function SubAccountsBelow({ account: parent }: { account: string }) {
  const session = useSignedIn();
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ["subaccounts", parent, page],
    queryFn: () =>
      paged<SubAccount, { subaccount_via?: string[] }>("/api/v2/subaccounts", {
        subaccount: parent,
        page: String(page),
        per_page: String(PER_PAGE),
      }),
  });
  const { trail, known } = useTrail(list);
  return (
    <>
      <PageTitle>Sub-accounts of {parent}</PageTitle>
      {known ? <TreeTrail trail={trail} /> : null}
      <p>
        {parent}'s own customers. You read them here; {parent} sets their prices, gives them credits and keys, and
        suspends them.
        {canDo(session, "read") ? (
          <>
            {" "}
            <Link to={trailLink("/messages", trail, "own")}>{parent}'s messages</Link> ·{" "}
            <Link to={trailLink("/refusals", trail, "own")}>its refused sends</Link>
            {canDo(session, "develop") ? (
              <>
                {" "}
                · <Link to={trailLink("/settings/smpp", trail, "own")}>its SMPP binds</Link>
              </>
            ) : null}
          </>
        ) : null}
      </p>
      <ErrorNotice error={list.error} />
      {list.isPending ? <Busy /> : null}
      {list.data ? (
        <BelowParentNotice
          below={belowParentOf(list.data.data)}
          testId="subaccounts-below-parent"
          advice={`${parent} sets their prices: it raises such a card, or puts the sub-account on a markup.`}
        />
      ) : null}
      {list.data?.data.length === 0 ? <p data-testid="no-subaccounts">{parent} has no sub-accounts.</p> : null}
      {list.data && list.data.data.length > 0 ? <SubAccountTable subs={list.data.data} trail={trail} /> : null}
      <Pager meta={list.data?.meta} onPage={setPage} />
    </>
  );
}
