// Sign-in for account holders and the operator alike: the same password check, login locks
// and -16 rule as the API (POST /console/session).
import { type FormEvent, useState } from "react";
import { navigate } from "../router.js";
import { useSession } from "../session.js";
import { ErrorNotice, Field } from "../ui.js";

export function SignIn() {
  const { signIn, endedNotice } = useSession();
  const [username, setUsername] = useState("");
  const [login, setLogin] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await signIn(username.trim(), password, login.trim());
      // The operator starts on the operator's pages, unless a page was asked for by its URL.
      if (session.role === "operator" && window.location.pathname === "/")
        navigate("/operator/accounts", { replace: true });
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <main id="main" className="sign-in">
      <h1>Switchboard Console</h1>
      <p>
        Sign in with your account's username, and your own login if the account gave you one. Operators use the operator
        login.
      </p>
      {endedNotice && !error ? (
        <p className="notice" role="status">
          {endedNotice}
        </p>
      ) : null}
      <ErrorNotice error={error} title="Sign-in refused" />
      <form onSubmit={submit} aria-label="Sign in">
        <Field label="Username" id="username">
          <input
            id="username"
            name="username"
            autoComplete="username"
            required
            value={username}
            onChange={(event) => setUsername(event.target.value)}
          />
        </Field>
        <Field label="Your login" id="login" hint="Leave empty for the account's own login (its owner)">
          <input
            id="login"
            name="login"
            autoComplete="off"
            aria-describedby="login-hint"
            value={login}
            onChange={(event) => setLogin(event.target.value)}
          />
        </Field>
        <Field label="Password" id="password">
          <input
            id="password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </Field>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
