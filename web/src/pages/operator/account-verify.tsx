// An account's verify settings on the operator's account page (issue 41): the SMS sender and DLT
// template, the WhatsApp template, the voice caller ID, the email sender, the resend order and the
// countries codes may go to, read and changed with GET and PUT
// /admin/api/accounts/{username}/verify (an empty field clears its setting).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../../api.js";
import type { VerifySettings } from "../../types.js";
import { Busy, ErrorNotice, Field, Success } from "../../ui.js";

const TEXT_FIELDS = [
  ["verify_sender_id", "SMS sender ID", "An approved sender ID (header) of the account"],
  ["verify_template_id", "SMS DLT template ID", "An approved template with exactly one {#var#}"],
  ["verify_whatsapp_template", "WhatsApp template", "An approved authentication template"],
  ["verify_caller_id", "Voice caller ID", "An approved caller number, e.g. +918047110000"],
  ["verify_email_from", "Email sender", "An address on an approved sending domain"],
] as const;

type TextField = (typeof TEXT_FIELDS)[number][0];
type Draft = Record<TextField | "verify_channels" | "verify_countries", string>;

function draftOf(settings: VerifySettings): Draft {
  return {
    verify_sender_id: settings.verify_sender_id ?? "",
    verify_template_id: settings.verify_template_id ?? "",
    verify_whatsapp_template: settings.verify_whatsapp_template ?? "",
    verify_caller_id: settings.verify_caller_id ?? "",
    verify_email_from: settings.verify_email_from ?? "",
    verify_channels: settings.verify_channels.join(", "),
    verify_countries: settings.verify_countries.join(", "),
  };
}

/** A list typed as words separated by commas, spaces or arrows; empty: null (the default). */
function listOf(text: string): string[] | null {
  const words = text
    .split(/[\s,>→]+/)
    .map((word) => word.trim())
    .filter(Boolean);
  return words.length === 0 ? null : words;
}

function VerifyForm({ username, settings }: { username: string; settings: VerifySettings }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(settings));
  const save = useMutation({
    mutationFn: () =>
      data<VerifySettings>(`/admin/api/accounts/${encodeURIComponent(username)}/verify`, {
        method: "PUT",
        json: {
          ...Object.fromEntries(TEXT_FIELDS.map(([key]) => [key, draft[key].trim() === "" ? null : draft[key].trim()])),
          verify_channels: listOf(draft.verify_channels.toLowerCase()),
          verify_countries: listOf(draft.verify_countries),
        },
      }),
    onSuccess: (next) => {
      queryClient.setQueryData(["operator", "verify", username], next);
      setDraft(draftOf(next));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Verify settings">
      <div className="columns">
        {TEXT_FIELDS.map(([key, label, hint]) => (
          <Field key={key} label={label} id={`verify-${key}`} hint={hint}>
            <input
              id={`verify-${key}`}
              aria-describedby={`verify-${key}-hint`}
              maxLength={200}
              value={draft[key]}
              onChange={(event) => setDraft({ ...draft, [key]: event.target.value })}
            />
          </Field>
        ))}
        <Field
          label="Resend order"
          id="verify-channels"
          hint="Channels in order: sms, whatsapp, voice, email; empty = sms, whatsapp, voice"
        >
          <input
            id="verify-channels"
            aria-describedby="verify-channels-hint"
            value={draft.verify_channels}
            onChange={(event) => setDraft({ ...draft, verify_channels: event.target.value })}
          />
        </Field>
        <Field label="Countries" id="verify-countries" hint="ISO 3166 codes, e.g. IN, SG; empty = IN">
          <input
            id="verify-countries"
            aria-describedby="verify-countries-hint"
            value={draft.verify_countries}
            onChange={(event) => setDraft({ ...draft, verify_countries: event.target.value })}
          />
        </Field>
      </div>
      <button type="submit" className="primary" disabled={save.isPending}>
        Save verify settings
      </button>
      <ErrorNotice error={save.error} title="Not saved" />
      {save.isSuccess ? <Success>Saved; the next verification uses them.</Success> : null}
    </form>
  );
}

export function VerifySettingsForm({ username }: { username: string }) {
  const settings = useQuery({
    queryKey: ["operator", "verify", username],
    queryFn: () => data<VerifySettings>(`/admin/api/accounts/${encodeURIComponent(username)}/verify`),
  });
  if (settings.error) return <ErrorNotice error={settings.error} />;
  if (!settings.data) return <Busy />;
  return <VerifyForm key={username} username={username} settings={settings.data} />;
}
