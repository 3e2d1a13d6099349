// What an operator's staff role may change (console audit: support and finance staff were offered
// every operator_admin control, each refused 403). Controls that only act are hidden from a role
// without the capability, as the price cards do; a form that also shows the current settings stays
// readable, disabled, with a note of which staff roles change it.
import type { ReactNode } from "react";
import { canDo, useSignedIn } from "./session.js";
import { type Capability, ROLE_CAPABILITIES, STAFF_ROLES } from "./types.js";

/** Whether the signed-in user's role has `capability`. */
export function useCan(capability: Capability): boolean {
  return canDo(useSignedIn(), capability);
}

/** `children` as they are for a role with `capability`; otherwise disabled, with who may change them. */
export function StaffReadOnly({
  capability,
  what,
  children,
}: {
  capability: Capability;
  what: string;
  children: ReactNode;
}) {
  const session = useSignedIn();
  if (canDo(session, capability)) return <>{children}</>;
  const may = STAFF_ROLES.filter((r) => ROLE_CAPABILITIES[r].includes(capability));
  return (
    <fieldset disabled className="bare" data-testid="staff-read-only">
      <p className="hint" data-testid="staff-note">
        Your role ({session.user_role}) reads this; {what} is for {may.join(" or ")} staff.
      </p>
      {children}
    </fieldset>
  );
}

/** `children` only for a role with `capability`. */
export function StaffOnly({ capability, children }: { capability: Capability; children: ReactNode }) {
  return useCan(capability) ? children : null;
}
