// The operator's account page, its SMPP part: the account's clients bound to the SMPP server now
// in any process (GET /admin/api/smpp/binds?username=), refreshed every 5 s, with times in the zone
// the page names (the account's unless the operator chose their own: account-zone.tsx).
import { useQuery } from "@tanstack/react-query";
import { data, withQuery } from "../../api.js";
import type { SmppBind } from "../../operator-types.js";
import { Busy, ErrorNotice } from "../../ui.js";
import { BINDS_REFRESH_MS, BindsTable } from "../Smpp.js";

export function AccountBinds({ username, timeZone }: { username: string; timeZone: string }) {
  const binds = useQuery({
    queryKey: ["operator", "smpp-binds", username],
    queryFn: () => data<SmppBind[]>(withQuery("/admin/api/smpp/binds", { username })),
    refetchInterval: BINDS_REFRESH_MS,
  });
  return (
    <section aria-labelledby="smpp-title">
      <h2 id="smpp-title">SMPP binds</h2>
      <ErrorNotice error={binds.error} />
      {binds.isPending ? <Busy /> : null}
      {binds.data ? <BindsTable binds={binds.data} timeZone={timeZone} /> : null}
      <p className="hint">
        Its SMPP password and limits: <code>PATCH /admin/api/accounts/{username}</code> (<code>smpp_password</code>,{" "}
        <code>smpp_max_binds</code>, …).
      </p>
    </section>
  );
}
