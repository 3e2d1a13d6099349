// Your own password (PUT /api/v2/password): the current one, then the new one twice. Your other
// sessions end; this one stays. The owner login's password is the account's.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../api.js";
import type { PasswordChanged } from "../types.js";
import { ErrorNotice, Field, Success } from "../ui.js";

export function PasswordChange({ login }: { login: string }) {
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeated, setRepeated] = useState("");
  const change = useMutation({
    mutationFn: () =>
      data<PasswordChanged>("/api/v2/password", {
        method: "PUT",
        json: { current_password: current, new_password: next },
      }),
    onSuccess: () => {
      setCurrent("");
      setNext("");
      setRepeated("");
      void queryClient.invalidateQueries({ queryKey: ["sessions"] });
    },
  });
  const mismatch = repeated !== "" && repeated !== next;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!mismatch) change.mutate();
  };

  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Your password</h2>
      <form onSubmit={submit} aria-label="Change your password">
        {/* For the browser's password manager: whose password this is. */}
        <input type="text" name="username" autoComplete="username" value={login} readOnly hidden />
        <Field label="Current password" id="password-current">
          <input
            id="password-current"
            type="password"
            required
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </Field>
        <Field label="New password" id="password-new" hint="At least 8 characters">
          <input
            id="password-new"
            type="password"
            required
            minLength={8}
            autoComplete="new-password"
            aria-describedby="password-new-hint"
            value={next}
            onChange={(e) => setNext(e.target.value)}
          />
        </Field>
        <Field
          label="New password again"
          id="password-repeat"
          hint={mismatch ? "The two new passwords differ" : undefined}
        >
          <input
            id="password-repeat"
            type="password"
            required
            autoComplete="new-password"
            aria-invalid={mismatch}
            value={repeated}
            onChange={(e) => setRepeated(e.target.value)}
          />
        </Field>
        <button type="submit" className="primary" disabled={change.isPending || mismatch}>
          Change password
        </button>
      </form>
      <ErrorNotice error={change.error} title="Not changed" />
      {change.data ? (
        <Success>
          Password changed.{" "}
          {change.data.sessions_ended === 1
            ? "1 other session ended."
            : `${change.data.sessions_ended} other sessions ended.`}
        </Success>
      ) : null}
    </section>
  );
}
