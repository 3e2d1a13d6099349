// The banner of an operator's read-only view of an account ("View as this account"): whose
// console this is, that it changes nothing, and Close, which ends the view (DELETE
// /console/session/view) and goes back to the operator's page of the account.
import { useMutation } from "@tanstack/react-query";
import { navigate } from "./router.js";
import type { SessionInfo } from "./session.js";
import { useSession } from "./session.js";
import { ErrorNotice } from "./ui.js";

export function ViewBanner({ session }: { session: SessionInfo }) {
  const { closeView } = useSession();
  const account = session.username;
  const close = useMutation({
    mutationFn: closeView,
    onSuccess: () => navigate(`/operator/accounts/${encodeURIComponent(account)}`, { replace: true }),
  });
  if (!session.viewer) return null;
  return (
    <section className="view-banner" aria-label="Read-only view" data-testid="view-banner">
      <span>Viewing {account} as operator — read only</span>
      <button type="button" onClick={() => close.mutate()} disabled={close.isPending}>
        Close
      </button>
      <ErrorNotice error={close.error} title="Not closed" />
    </section>
  );
}
