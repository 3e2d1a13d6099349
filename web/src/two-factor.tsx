// Setting up a second factor (TOTP): the QR code to scan, the secret to type when the phone cannot
// scan, a first code to confirm, then the ten recovery codes, shown once. Used by the sign-in of a
// login that must enrol (with its challenge) and by the Two-factor page of a signed-in one.
import { type FormEvent, useEffect, useState } from "react";
import { data } from "./api.js";
import { ErrorNotice, Field } from "./ui.js";

export interface Enrolment {
  secret: string;
  otpauth_url: string;
  qr_code: string;
}

/** The secret in groups of four, as authenticator apps show one to type. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, "$1 ");

export function EnrolFactor<T extends { recovery_codes: string[] }>({
  challenge,
  onConfirmed,
}: {
  /** The sign-in's `enrol` challenge, for a login that has no session yet. */
  challenge?: string;
  onConfirmed: (confirmed: T) => void;
}) {
  const [enrolment, setEnrolment] = useState<Enrolment>();
  const [showSecret, setShowSecret] = useState(false);
  const [code, setCode] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    data<Enrolment>("/console/two-factor", { json: challenge ? { challenge } : {} })
      .then((started) => live && setEnrolment(started))
      .catch((caught) => live && setError(caught));
    return () => {
      live = false;
    };
  }, [challenge]);

  const confirm = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const confirmed = await data<T>("/console/two-factor/confirm", {
        json: { ...(challenge ? { challenge } : {}), code: code.trim() },
      });
      onConfirmed(confirmed);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="enrol-heading" className="enrol">
      <h2 id="enrol-heading">Set up two-factor sign-in</h2>
      <ol>
        <li>Scan this QR code with an authenticator app (Google Authenticator, 1Password, Aegis, …).</li>
        <li>Type the six-digit code the app shows for Switchboard.</li>
      </ol>
      <ErrorNotice error={error} title="Not set up" />
      {enrolment ? (
        <>
          <img className="qr" src={enrolment.qr_code} alt="QR code of the two-factor secret" width={200} height={200} />
          <p>
            {showSecret ? (
              <>
                Secret (type it into the app if it cannot scan):{" "}
                <code className="secret" data-testid="totp-secret">
                  {grouped(enrolment.secret)}
                </code>
              </>
            ) : (
              <button type="button" onClick={() => setShowSecret(true)}>
                Can't scan? Show the secret
              </button>
            )}
          </p>
          <form onSubmit={confirm} aria-label="Confirm two-factor sign-in">
            <Field label="Code from the app" id="enrol-code">
              <input
                id="enrol-code"
                inputMode="numeric"
                autoComplete="one-time-code"
                pattern="[0-9 ]{6,7}"
                title="The six digits the app shows, e.g. 123456"
                required
                value={code}
                onChange={(event) => setCode(event.target.value)}
              />
            </Field>
            <button type="submit" className="primary" disabled={busy}>
              {busy ? "Checking…" : "Turn on two-factor sign-in"}
            </button>
          </form>
        </>
      ) : null}
    </section>
  );
}

/** The ten recovery codes, shown once: each signs in once in place of a code. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone?: () => void }) {
  return (
    <section aria-labelledby="recovery-heading" className="notice success">
      <h2 id="recovery-heading">Your recovery codes</h2>
      <p>
        Two-factor sign-in is on. Keep these codes somewhere safe: each one signs you in once if you lose your phone.
        They are shown only now.
      </p>
      <ul className="recovery-codes" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      {onDone ? (
        <button type="button" className="primary" onClick={onDone}>
          I have saved them: continue
        </button>
      ) : null}
    </section>
  );
}
