// The zone a page about one account writes its times in, named on the page. The account's own
// message page: its zone (the session's). The operator's pages of an account and of its message:
// the account's zone, as the customer's console shows them (a support person on the phone reads the
// customer's times), with a switch to the operator's own (decision 0161).
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { data } from "../api.js";
import { zoneLabel } from "../format.js";
import type { OperatorAccountDetail } from "../operator-types.js";

const named = (zone: string) => `${zone} (${zoneLabel(zone)})`;

/**
 * `account`: the account on the operator's page (a message's: null once removed), undefined on the
 * account's own; `own`: the signed-in account's zone. Answers the zone to write times in and the
 * line that names it.
 */
export function useAccountZone(account: string | null | undefined, own: string) {
  const [mine, setMine] = useState(false);
  const theirs = useQuery({
    queryKey: ["operator", "account", account ?? ""],
    queryFn: () => data<OperatorAccountDetail>(`/admin/api/accounts/${encodeURIComponent(account ?? "")}`),
    enabled: typeof account === "string",
  });
  const accountZone = theirs.data?.time_zone;
  const zone = accountZone && !mine ? accountZone : own;
  let words: string;
  if (account === undefined) words = `Times in ${named(own)}.`;
  else if (!accountZone) words = `Times in your zone, ${named(own)}.`;
  else if (accountZone === own) words = `Times in ${named(own)}, the account's zone and yours.`;
  else if (mine) words = `Times in your zone, ${named(own)}; the account's is ${named(accountZone)}.`;
  else words = `Times in the account's zone, ${named(accountZone)}, as its console shows them; yours is ${named(own)}.`;
  const switchable = accountZone !== undefined && accountZone !== own;
  const note = (
    <p className="hint" data-testid="times-zone">
      {words}{" "}
      {switchable ? (
        <button type="button" onClick={() => setMine(!mine)}>
          {mine ? "Show the account's times" : "Show your times"}
        </button>
      ) : null}
    </p>
  );
  return { zone, note };
}
