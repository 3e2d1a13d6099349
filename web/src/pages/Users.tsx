// The account's users (/api/v2/users) or the operator's staff (/admin/api/staff): add one with a
// password, or invite one (the link shown here once, and emailed where the gateway has a mail
// relay: the page says which), or send an invited one a new link; change a role, end a user's
// sessions, remove one, each confirmed first. A new role or password ends the user's sessions.
// Only an owner makes, changes or removes an owner: an admin is not offered the role.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../api.js";
import { formatTime } from "../format.js";
import { canDo, useSignedIn } from "../session.js";
import { ACCOUNT_USER_ROLES, type CreatedUser, STAFF_ROLES, type User } from "../types.js";
import { ConfirmButton, ErrorNotice, Field, PageTitle, StatusBadge, Success } from "../ui.js";

/** The link of an invitation just made, shown this once, and whether it was emailed. */
function InvitationNotice({ user, timeZone }: { user: CreatedUser; timeZone: string }) {
  const invitation = user.invitation;
  if (!invitation) return null;
  const until = formatTime(invitation.expires_at, timeZone);
  return (
    <div className="notice" role="status" data-testid="invitation">
      {invitation.emailed ? (
        <p>
          Invitation emailed to {user.login} at {user.email}. The link is shown only now too; it works once, until{" "}
          {until}:
        </p>
      ) : (
        <p>
          <strong>Not emailed</strong>
          {user.email
            ? ` (the gateway has no mail relay set up, or it refused the mail to ${user.email})`
            : " (no email address given)"}
          : copy this link and send it to {user.login} yourself. It is shown only now, and works once, until {until}:
        </p>
      )}
      <code className="secret">{invitation.url}</code>
    </div>
  );
}

/** Whether `role` is one the signed-in user may give or take: only an owner makes or changes an owner. */
function mayHandle(myRole: string, role: string): boolean {
  return role !== "owner" || myRole === "owner";
}

/** One user's row: the role chosen, then applied by a confirmed button (it ends their sessions). */
function UserRow({
  user,
  roles,
  myRole,
  busy,
  onChange,
  onReinvite,
  reads = false,
}: {
  /** The signed-in staff reads the list only (operator_support, operator_finance): no control. */
  reads?: boolean;
  user: User;
  roles: readonly string[];
  myRole: string;
  busy: boolean;
  onChange: (args: ChangeArgs) => void;
  onReinvite: () => void;
}) {
  const [role, setRole] = useState(user.user_role);
  const locked = reads || !mayHandle(myRole, user.user_role);
  const offered = roles.filter((r) => mayHandle(myRole, r));
  return (
    <tr data-testid={`user-${user.login}`}>
      <td>{user.login}</td>
      <td>{user.email ?? ""}</td>
      <td>
        {locked ? (
          user.user_role
        ) : (
          <select aria-label={`Role of ${user.login}`} value={role} onChange={(e) => setRole(e.target.value)}>
            {offered.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        )}
      </td>
      <td>
        <StatusBadge status={user.status} />
      </td>
      {reads ? null : (
        <td className="actions">
          {locked ? (
            <span className="hint">Only an owner changes an owner.</span>
          ) : (
            <>
              {user.status === "invited" ? (
                <>
                  <button type="button" disabled={busy} onClick={onReinvite}>
                    Send a new invitation to {user.login}
                  </button>{" "}
                </>
              ) : null}
              {role !== user.user_role ? (
                <ConfirmButton
                  label={`Make ${user.login} ${role}`}
                  confirmLabel={`Confirm: make ${user.login} ${role}`}
                  warning={`${user.login} becomes ${role}: their sessions end now, and from their next request they and the API keys they made may do only what ${role} may.`}
                  disabled={busy}
                  onConfirm={() => onChange({ login: user.login, method: "PATCH", json: { user_role: role } })}
                />
              ) : null}{" "}
              <ConfirmButton
                label={`End sessions of ${user.login}`}
                confirmLabel={`Confirm: sign ${user.login} out`}
                warning={`${user.login} is signed out of every browser now; they can sign in again.`}
                disabled={busy}
                onConfirm={() => onChange({ login: user.login, path: "/sessions", method: "DELETE" })}
              />{" "}
              <ConfirmButton
                danger
                label={`Remove ${user.login}`}
                confirmLabel={`Confirm: remove ${user.login}`}
                warning={`${user.login} can no longer sign in; their sessions end now and the API keys they made are revoked.`}
                disabled={busy}
                onConfirm={() => onChange({ login: user.login, method: "DELETE" })}
              />
            </>
          )}
        </td>
      )}
    </tr>
  );
}

interface ChangeArgs {
  login: string;
  path?: string;
  method: "PATCH" | "DELETE";
  json?: { user_role: string };
}

export function UserAdmin({ kind }: { kind: "account" | "staff" }) {
  const session = useSignedIn();
  /** Staff other than operator_admin read the staff list; the API refuses them every change. */
  const reads = kind === "staff" && !canDo(session, "staff_admin");
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
  /** After a success: the list read again, and the notices of earlier failures gone. */
  const succeeded = () => {
    for (const mutation of [create, reinvite, change]) mutation.reset();
    void queryClient.invalidateQueries({ queryKey: [base] });
  };
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
      succeeded();
    },
  });
  const reinvite = useMutation({
    mutationFn: (who: string) => data<CreatedUser>(`${base}/${encodeURIComponent(who)}/invitation`, { method: "POST" }),
    onSuccess: (user) => {
      setShown(user);
      setDone(undefined);
      succeeded();
    },
  });
  const change = useMutation({
    mutationFn: (args: ChangeArgs) =>
      data(`${base}/${encodeURIComponent(args.login)}${args.path ?? ""}`, {
        method: args.method,
        ...(args.json ? { json: args.json } : {}),
      }),
    onSuccess: (_, args) => {
      setDone(
        args.json
          ? `${args.login} is ${args.json.user_role} now; their sessions ended.`
          : args.path
            ? `${args.login} is signed out everywhere.`
            : `${args.login} is removed.`,
      );
      succeeded();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    create.mutate();
  };

  return (
    <>
      <PageTitle>{kind === "staff" ? "Staff" : "Users"}</PageTitle>
      <p>
        {kind === "staff"
          ? "The operator's staff: operator_admin changes everything, operator_support reads everything, operator_finance handles credits, prices and the ledger."
          : "The account's users. Your account's own username and password stay its owner login."}
      </p>
      {reads ? null : (
        <form onSubmit={submit} aria-label={kind === "staff" ? "Add staff" : "Add a user"}>
          <Field label="Login" id="user-login">
            <input id="user-login" required maxLength={64} value={login} onChange={(e) => setLogin(e.target.value)} />
          </Field>
          <Field label="Role" id="user-role">
            <select id="user-role" value={role} onChange={(e) => setRole(e.target.value)}>
              {roles
                .filter((r) => mayHandle(session.user_role, r))
                .map((r) => (
                  <option key={r}>{r}</option>
                ))}
            </select>
          </Field>
          <Field
            label="Email"
            id="user-email"
            hint="An invitation is emailed here if the gateway has a mail relay; otherwise you copy its link from this page"
          >
            <input
              id="user-email"
              type="email"
              aria-describedby="user-email-hint"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
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
      )}
      <ErrorNotice error={create.error} title="Not added" />
      {shown ? <InvitationNotice user={shown} timeZone={session.time_zone} /> : null}
      {done ? <Success>{done}</Success> : null}
      <ErrorNotice error={change.error} title="Not changed" />
      <ErrorNotice error={reinvite.error} title="Not sent" />
      <ErrorNotice error={users.error} />
      {users.data ? (
        <div className="table-wrap">
          <table>
            <caption>{kind === "staff" ? "Staff" : "Users of the account"}</caption>
            <thead>
              <tr>
                <th scope="col">Login</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">State</th>
                {reads ? null : <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {users.data.map((user) => (
                <UserRow
                  key={`${user.login}:${user.user_role}`}
                  user={user}
                  roles={roles}
                  myRole={session.user_role}
                  busy={change.isPending || reinvite.isPending}
                  onChange={(args) => change.mutate(args)}
                  onReinvite={() => reinvite.mutate(user.login)}
                  reads={reads}
                />
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
