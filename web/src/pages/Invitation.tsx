// An invitation's link (/invitation?token=…), opened signed out: whose it is, a password to set,
// then the sign-in with the account and login filled in.
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../api.js";
import { navigate, useLocation } from "../router.js";
import { useSession } from "../session.js";
import type { Invitation as InvitationInfo } from "../types.js";
import { Busy, ErrorNotice, Field } from "../ui.js";

export function Invitation() {
  const { query } = useLocation();
  const { signIn } = useSession();
  const token = query.get("token") ?? "";
  const [password, setPassword] = useState("");
  const invitation = useQuery({
    queryKey: ["invitation", token],
    queryFn: () => data<InvitationInfo>(`/console/invitation?token=${encodeURIComponent(token)}`),
    retry: false,
  });
  const accept = useMutation({
    mutationFn: async () => {
      const accepted = await data<InvitationInfo>("/console/invitation", { json: { token, password } });
      await signIn(accepted.account, password, accepted.login);
    },
    onSuccess: () => navigate("/", { replace: true }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    accept.mutate();
  };

  return (
    <main id="main" className="sign-in">
      <h1>Accept your invitation</h1>
      {invitation.isPending ? <Busy /> : null}
      <ErrorNotice error={invitation.error} title="This link does not work" />
      {invitation.data ? (
        <>
          <p>
            You are invited to the account <strong>{invitation.data.account}</strong> as{" "}
            <strong>{invitation.data.login}</strong> ({invitation.data.user_role}). Choose your password.
          </p>
          <ErrorNotice error={accept.error} title="Not accepted" />
          <form onSubmit={submit} aria-label="Set your password">
            <Field label="New password" id="new-password" hint="At least 8 characters">
              <input
                id="new-password"
                type="password"
                autoComplete="new-password"
                minLength={8}
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            </Field>
            <button type="submit" className="primary" disabled={accept.isPending}>
              Set password and sign in
            </button>
          </form>
        </>
      ) : null}
    </main>
  );
}
