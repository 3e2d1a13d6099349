// Sign-in for account holders and the operator alike: the same password check, login locks
// and -16 rule as the API (POST /console/session). A login with a second factor then gives a
// code (POST /console/session/totp); one that must have a factor and has none sets it up first.
import { type FormEvent, useState } from "react";
import { navigate } from "../router.js";
import { type SecondStep, type SessionInfo, useSession } from "../session.js";
import { EnrolFactor, RecoveryCodes } from "../two-factor.js";
import { ErrorNotice, Field } from "../ui.js";

/** The operator starts on the operator's pages, unless a page was asked for by its URL. */
function landOn(session: SessionInfo) {
  if (session.role === "operator" && window.location.pathname === "/")
    navigate("/operator/accounts", { replace: true });
}

export function SignIn() {
  const { signIn, completeSignIn, adoptSession, endedNotice } = useSession();
  const [username, setUsername] = useState("");
  const [login, setLogin] = useState("");
  const [password, setPassword] = useState("");
  const [step, setStep] = useState<SecondStep>();
  const [code, setCode] = useState("");
  const [enrolled, setEnrolled] = useState<SessionInfo & { recovery_codes: string[] }>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const started = await signIn(username.trim(), password, login.trim());
      if ("second_step" in started) {
        setStep(started);
        setBusy(false);
      } else landOn(started);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  const submitCode = async (event: FormEvent) => {
    event.preventDefault();
    if (!step) return;
    setBusy(true);
    setError(undefined);
    try {
      landOn(await completeSignIn(step.challenge, code.trim()));
    } catch (caught) {
      setError(caught);
      setCode("");
      setBusy(false);
    }
  };

  const startAgain = () => {
    setStep(undefined);
    setCode("");
    setPassword("");
    setError(undefined);
  };

  return (
    <main id="main" className="sign-in">
      <h1>Switchboard Console</h1>
      {endedNotice && !error && !step ? (
        <p className="notice" role="status">
          {endedNotice}
        </p>
      ) : null}
      <ErrorNotice error={error} title="Sign-in refused" />
      {enrolled ? (
        <RecoveryCodes
          codes={enrolled.recovery_codes}
          onDone={() => {
            adoptSession(enrolled);
            landOn(enrolled);
          }}
        />
      ) : step?.second_step === "enrol" ? (
        <>
          <p>Your account requires two-factor sign-in: set it up now to finish signing in.</p>
          <EnrolFactor<SessionInfo & { recovery_codes: string[] }>
            challenge={step.challenge}
            onConfirmed={setEnrolled}
          />
          <button type="button" onClick={startAgain}>
            Cancel
          </button>
        </>
      ) : step?.second_step === "totp" ? (
        <form onSubmit={submitCode} aria-label="Two-factor code">
          <p>Enter the six-digit code your authenticator app shows, or one of your recovery codes.</p>
          <Field label="Code" id="totp-code">
            <input
              id="totp-code"
              name="code"
              autoComplete="one-time-code"
              autoCapitalize="none"
              spellCheck={false}
              required
              maxLength={32}
              value={code}
              onChange={(event) => setCode(event.target.value)}
            />
          </Field>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? "Checking…" : "Verify"}
          </button>{" "}
          <button type="button" onClick={startAgain}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <p>
            Sign in with your account's username, and your own login if the account gave you one. Operators use the
            operator login.
          </p>
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
        </>
      )}
    </main>
  );
}
