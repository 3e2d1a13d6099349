// The account's users (/api/v2/users) or the operator's staff (/admin/api/staff): add one with a
// password, or invite one (the link shown here once, and emailed), or send an invited one a new
// link; change a role; end a user's sessions; remove one. A new role or password ends the user's
// sessions.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../api.js";
import { formatTime } from "../format.js";
import { useSignedIn } from "../session.js";
import { ACCOUNT_USER_ROLES, type CreatedUser, STAFF_ROLES, type User } from "../types.js";
import { ConfirmButton, ErrorNotice, Field, PageTitle, StatusBadge, Success } from "../ui.js";

export function UserAdmin({ kind }: { kind: "account" | "staff" }) {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const base = kind === "staff" ? "/admin/api/staff" : "/api/v2/users";
  const roles: readonly string[] = kind === "staff" ? STAFF_ROLES : ACCOUNT_USER_ROLES;
  const [login, setLogin] = useState("");
  const [email, setEmail] = useState("");
  // The least a new member may do, unless chosen otherwise.
  const [role, setRole] = useState(kind === "staff" ? "operator_support" : "support");
  const [password, setPassword] = useState("");
  const [done, setDone] = useState<string>();
  /** The last invitation made here: its link is shown this once. */
  const [shown, setShown] = useState<CreatedUser>();
  const users = useQuery({ queryKey: [base], queryFn: () => data<User[]>(base) });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: [base] });
  const create = useMutation({
    mutationFn: () =>
      data<CreatedUser>(base, {
        json: {
          login: login.trim(),
          user_role: role,
          ...(email.trim() ? { email: email.trim() } : {}),
          ...(password ? { password } : {}),
        },
      }),
    onSuccess: (user) => {
      setLogin("");
      setEmail("");
      setPassword("");
      setShown(user.invitation ? user : undefined);
      setDone(user.invitation ? undefined : `${user.login} can sign in now.`);
      refresh();
    },
  });
  const reinvite = useMutation({
    mutationFn: (who: string) => data<CreatedUser>(`${base}/${encodeURIComponent(who)}/invitation`, { method: "POST" }),
    onSuccess: (user) => {
      setShown(user);
      setDone(undefined);
      refresh();
    },
  });
  const change = useMutation({
    mutationFn: (args: { login: string; path?: string; method: "PATCH" | "DELETE"; json?: unknown }) =>
      data(`${base}/${encodeURIComponent(args.login)}${args.path ?? ""}`, {
        method: args.method,
        ...(args.json ? { json: args.json } : {}),
      }),
    onSuccess: (_, args) => {
      setDone(
        args.method === "PATCH" ? `${args.login}'s role changed; their sessions ended.` : `Done for ${args.login}.`,
      );
      refresh();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    create.mutate();
  };
  const invitation = shown?.invitation;

  return (
    <>
      <PageTitle>{kind === "staff" ? "Staff" : "Users"}</PageTitle>
      <p>
        {kind === "staff"
          ? "The operator's staff: operator_admin changes everything, operator_support reads everything, operator_finance handles credits, prices and the ledger."
          : "The account's users. Your account's own username and password stay its owner login."}
      </p>
      <form onSubmit={submit} aria-label={kind === "staff" ? "Add staff" : "Add a user"}>
        <Field label="Login" id="user-login">
          <input id="user-login" required maxLength={64} value={login} onChange={(e) => setLogin(e.target.value)} />
        </Field>
        <Field label="Role" id="user-role">
          <select id="user-role" value={role} onChange={(e) => setRole(e.target.value)}>
            {roles.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </Field>
        <Field label="Email" id="user-email" hint="Where the invitation is sent">
          <input id="user-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Password" id="user-password" hint="Leave empty to invite by link instead">
          <input
            id="user-password"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <button type="submit" className="primary" disabled={create.isPending}>
          {password ? "Add" : "Invite"}
        </button>
      </form>
      <ErrorNotice error={create.error} title="Not added" />
      {invitation ? (
        <div className="notice" role="status" data-testid="invitation">
          <p>
            Invitation link for {shown?.login}, shown only now
            {invitation.emailed ? " (also emailed)" : ""}; it works once, until{" "}
            {formatTime(invitation.expires_at, session.time_zone)}:
          </p>
          <code className="secret">{invitation.url}</code>
        </div>
      ) : null}
      {done ? <Success>{done}</Success> : null}
      <ErrorNotice error={change.error} title="Not changed" />
      <ErrorNotice error={reinvite.error} title="Not sent" />
      <ErrorNotice error={users.error} />
      {users.data ? (
        <div className="table-wrap">
          <table className="stack-narrow">
            <caption>{kind === "staff" ? "Staff" : "Users of the account"}</caption>
            <thead>
              <tr>
                <th scope="col">Login</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((user) => (
                <tr key={user.login} data-testid={`user-${user.login}`}>
                  <td data-label="Login">{user.login}</td>
                  <td data-label="Email">{user.email ?? ""}</td>
                  <td>
                    <select
                      aria-label={`Role of ${user.login}`}
                      value={user.user_role}
                      onChange={(e) =>
                        change.mutate({ login: user.login, method: "PATCH", json: { user_role: e.target.value } })
                      }
                    >
                      {roles.map((r) => (
                        <option key={r}>{r}</option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <StatusBadge status={user.status} />
                  </td>
                  <td className="actions">
                    {user.status === "invited" ? (
                      <>
                        <button type="button" disabled={reinvite.isPending} onClick={() => reinvite.mutate(user.login)}>
                          Send a new invitation to {user.login}
                        </button>{" "}
                      </>
                    ) : null}
                    <button
                      type="button"
                      onClick={() => change.mutate({ login: user.login, path: "/sessions", method: "DELETE" })}
                    >
                      End sessions of {user.login}
                    </button>{" "}
                    <ConfirmButton
                      danger
                      label={`Remove ${user.login}`}
                      confirmLabel={`Confirm: remove ${user.login}`}
                      warning={`${user.login} can no longer sign in; their sessions end now.`}
                      onConfirm={() => change.mutate({ login: user.login, method: "DELETE" })}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}

export default function Users() {
  return <UserAdmin kind="account" />;
}
