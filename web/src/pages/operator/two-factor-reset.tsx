// The operator resets an account owner's second factor (a lost phone): it signs in with its
// password alone, or sets a factor up again where one is required (audited by the gateway).
import { useMutation } from "@tanstack/react-query";
import { data } from "../../api.js";
import { ConfirmButton, ErrorNotice, Success } from "../../ui.js";

export function TwoFactorReset({ username }: { username: string }) {
  const reset = useMutation({
    mutationFn: () => data(`/admin/api/accounts/${encodeURIComponent(username)}/two-factor`, { method: "DELETE" }),
  });
  return (
    <div className="actions">
      <ConfirmButton
        label="Reset two-factor sign-in"
        confirmLabel={`Confirm: reset ${username}'s two-factor sign-in`}
        warning={`${username} will sign in with the password alone until a new factor is set up (at the next sign-in, where the account requires one).`}
        onConfirm={() => reset.mutate()}
      />
      {reset.isSuccess ? <Success>Two-factor sign-in of {username} reset.</Success> : null}
      <ErrorNotice error={reset.error} title="Not reset" />
    </div>
  );
}
