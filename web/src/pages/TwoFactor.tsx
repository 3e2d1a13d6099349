// Two-factor sign-in for the signed-in login: set it up (QR code, secret, a first code, recovery
// codes shown once) or turn it off with a code; and, for the account, whether every login must
// have one (PUT /api/v2/two-factor/policy; an admin turns it on, only an owner off).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Static } from "typebox";
import type { TwoFactorPolicy } from "../../../src/app/two-factor-schemas.js";
import { mayStopRequiringTwoFactor } from "../../../src/domain/auth/user-roles.js";
import { data } from "../api.js";
import { formatTime } from "../format.js";
import { canDo, useSignedIn } from "../session.js";
import { EnrolFactor, RecoveryCodes } from "../two-factor.js";
import { Busy, ErrorNotice, Field, PageTitle, RoleNote, Success } from "../ui.js";

interface FactorState {
  login: string;
  enabled: boolean;
  enabled_at: string | null;
  recovery_codes_left: number;
  required: boolean;
  required_by: "account" | "operator_policy" | null;
}

type Policy = Static<typeof TwoFactorPolicy>;

export default function TwoFactor() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const [enrolling, setEnrolling] = useState(false);
  const [codes, setCodes] = useState<string[]>();
  const [code, setCode] = useState("");
  // An operator's view of an account shows the account's policy only: the staff login's own factor
  // is not set up in a view (the server answers 403 read_only_view).
  const viewing = session.read_only === true;
  const state = useQuery({
    queryKey: ["two-factor"],
    queryFn: () => data<FactorState>("/console/two-factor"),
    enabled: !viewing,
  });
  const policy = useQuery({
    queryKey: ["two-factor-policy"],
    queryFn: () => data<Policy>("/api/v2/two-factor/policy"),
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ["two-factor"] });
    void queryClient.invalidateQueries({ queryKey: ["two-factor-policy"] });
  };
  const turnOff = useMutation({
    mutationFn: () => data("/console/two-factor", { method: "DELETE", json: { code: code.trim() } }),
    onSuccess: () => {
      setCode("");
      setCodes(undefined);
      refresh();
    },
  });
  const setRequired = useMutation({
    mutationFn: (required: boolean) => data<Policy>("/api/v2/two-factor/policy", { method: "PUT", json: { required } }),
    onSuccess: refresh,
  });

  // On, the setting is the owner's to turn off (decision 0182): an admin's box is shown, not changed.
  const ownersOnly =
    policy.data?.required === true &&
    canDo(session, "manage") &&
    session.read_only !== true &&
    !mayStopRequiringTwoFactor(session.user_role);

  const submitOff = (event: FormEvent) => {
    event.preventDefault();
    turnOff.mutate();
  };

  return (
    <>
      <PageTitle>Two-factor sign-in</PageTitle>
      <ErrorNotice error={state.error ?? policy.error} />
      {viewing ? (
        <p className="hint" data-testid="two-factor-state">
          This is a read-only view of {session.username}: your own two-factor sign-in is set up with the view closed.
        </p>
      ) : state.isPending ? (
        <Busy />
      ) : null}
      {codes ? <RecoveryCodes codes={codes} /> : null}
      {state.data ? (
        state.data.enabled ? (
          <section aria-labelledby="factor-on">
            <h2 id="factor-on">On</h2>
            <p data-testid="two-factor-state">
              Two-factor sign-in is on for {state.data.login} since{" "}
              {state.data.enabled_at ? formatTime(state.data.enabled_at, session.time_zone) : ""};{" "}
              {state.data.recovery_codes_left} recovery codes left.
            </p>
            <form onSubmit={submitOff} aria-label="Turn off two-factor sign-in">
              <Field label="Code from the app, or a recovery code" id="off-code">
                <input
                  id="off-code"
                  autoComplete="one-time-code"
                  required
                  maxLength={32}
                  value={code}
                  onChange={(event) => setCode(event.target.value)}
                />
              </Field>
              <button type="submit" className="danger" disabled={turnOff.isPending}>
                Turn off
              </button>
            </form>
            <ErrorNotice error={turnOff.error} title="Still on" />
          </section>
        ) : enrolling ? (
          <EnrolFactor<{ recovery_codes: string[] }>
            onConfirmed={(confirmed) => {
              setEnrolling(false);
              setCodes(confirmed.recovery_codes);
              refresh();
            }}
          />
        ) : (
          <section aria-labelledby="factor-off">
            <h2 id="factor-off">Off</h2>
            <p data-testid="two-factor-state">
              {state.data.required
                ? "Your account requires two-factor sign-in: you will be asked to set it up at your next sign-in."
                : "Sign-in asks for your password only. Add a code from an authenticator app on your phone."}
            </p>
            <button type="button" className="primary" onClick={() => setEnrolling(true)}>
              Set up two-factor sign-in
            </button>
          </section>
        )
      ) : null}
      {policy.data ? (
        <section aria-labelledby="policy-heading">
          <h2 id="policy-heading">For the account</h2>
          <label className="check">
            <input
              type="checkbox"
              checked={policy.data.required}
              disabled={setRequired.isPending || session.read_only === true || !canDo(session, "manage") || ownersOnly}
              aria-describedby={ownersOnly ? "policy-owners-only" : undefined}
              onChange={(event) => setRequired.mutate(event.target.checked)}
            />{" "}
            Require two-factor sign-in for every login of this account
          </label>
          {canDo(session, "manage") ? null : (
            <RoleNote role={session.user_role} what="requiring it for every login" capability="manage" />
          )}
          {ownersOnly ? (
            <p className="hint" id="policy-owners-only" data-testid="policy-owners-only">
              Only the account's owner can stop requiring it: your role ({session.user_role}) can turn it on, not off.
            </p>
          ) : null}
          {policy.data.required_by === "operator_policy" ? (
            <p className="hint">The gateway requires it of every operator login (TWO_FACTOR_OPERATORS).</p>
          ) : null}
          {setRequired.isSuccess ? <Success>Saved.</Success> : null}
          <ErrorNotice error={setRequired.error} title="Not saved" />
        </section>
      ) : null}
    </>
  );
}
