// The sends of the other channels: a WhatsApp template with its {{n}} values (and its header's:
// a text header's values, a media header's link), an email from an approved domain, and a
// text-to-speech call from an approved caller number. An account without WhatsApp, or without an
// approved sending domain, is told so instead of offered a send that would be refused.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, data } from "../api.js";
import { plural } from "../format.js";
import { Link } from "../router.js";
import type { CallerId, EmailDomain, EmailSendAnswer, PlacedCall, WhatsAppSent, WhatsAppTemplate } from "../types.js";
import { ErrorNotice, Field, Success } from "../ui.js";

export function WhatsAppForm() {
  const queryClient = useQueryClient();
  const [to, setTo] = useState("");
  const [templateKey, setTemplateKey] = useState("");
  const [params, setParams] = useState<string[]>([]);
  const [headerParams, setHeaderParams] = useState<string[]>([]);
  const [headerUrl, setHeaderUrl] = useState("");
  const templates = useQuery({
    queryKey: ["whatsapp", "templates"],
    queryFn: () => data<WhatsAppTemplate[]>("/api/v2/whatsapp/templates"),
  });
  const sendable = (templates.data ?? []).filter((t) => t.is_sendable);
  const template = sendable.find((t) => `${t.name}|${t.language}` === templateKey) ?? sendable[0];
  /** image, video or document: the template's header is that media, whose link each send gives. */
  const headerMedia = ["image", "video", "document"].includes(template?.header_format ?? "")
    ? template?.header_format
    : undefined;
  const send = useMutation({
    mutationFn: () =>
      data<WhatsAppSent>("/api/v2/whatsapp/send", {
        json: {
          to,
          template: template?.name,
          language: template?.language,
          params: Array.from({ length: template?.param_count ?? 0 }, (_, i) => params[i] ?? ""),
          ...(template?.header_param_count
            ? { header_params: Array.from({ length: template.header_param_count }, (_, i) => headerParams[i] ?? "") }
            : {}),
          ...(headerMedia ? { header_media_url: headerUrl.trim() } : {}),
        },
      }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["messages"] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate();
  };
  if (templates.error instanceof ApiError && templates.error.code === "module_disabled") {
    return (
      <div className="notice" data-testid="whatsapp-disabled">
        <p>
          WhatsApp is not turned on for this account, so nothing can be sent on it yet. Ask your provider (the gateway's
          operator) to enable it; credits in the WhatsApp wallet stay there until then.
        </p>
      </div>
    );
  }
  return (
    <form onSubmit={submit} aria-label="Send a WhatsApp template">
      <Field label="To (WhatsApp number)" id="wa-to" hint="With the country code, e.g. +91 98765 43210">
        <input
          id="wa-to"
          required
          inputMode="tel"
          aria-describedby="wa-to-hint"
          value={to}
          onChange={(event) => setTo(event.target.value)}
        />
      </Field>
      <ErrorNotice error={templates.error} title="WhatsApp templates" />
      <Field label="Template" id="wa-template">
        <select
          id="wa-template"
          value={template ? `${template.name}|${template.language}` : ""}
          onChange={(event) => {
            setTemplateKey(event.target.value);
            setParams([]);
            setHeaderParams([]);
            setHeaderUrl("");
          }}
        >
          {sendable.map((t) => (
            <option key={`${t.name}|${t.language}`} value={`${t.name}|${t.language}`}>
              {t.name} ({t.language})
            </option>
          ))}
        </select>
      </Field>
      {template ? (
        <>
          <p className="hint">{template.body}</p>
          {headerMedia ? (
            <Field
              label={`Link to the header ${headerMedia}`}
              id="wa-header-url"
              hint={`The template shows this ${headerMedia} above its text: a public https:// link to it`}
            >
              <input
                id="wa-header-url"
                type="url"
                required
                inputMode="url"
                aria-describedby="wa-header-url-hint"
                value={headerUrl}
                onChange={(event) => setHeaderUrl(event.target.value)}
              />
            </Field>
          ) : null}
          {Array.from({ length: template.header_param_count }, (_, i) => (
            <Field
              // biome-ignore lint/suspicious/noArrayIndexKey: the values are positional, {{1}} to {{n}}
              key={i}
              label={`Header value of {{${i + 1}}}`}
              id={`wa-header-param-${i}`}
            >
              <input
                id={`wa-header-param-${i}`}
                required
                maxLength={1024}
                value={headerParams[i] ?? ""}
                onChange={(event) => {
                  const next = [...headerParams];
                  next[i] = event.target.value;
                  setHeaderParams(next);
                }}
              />
            </Field>
          ))}
          {Array.from({ length: template.param_count }, (_, i) => (
            <Field
              // biome-ignore lint/suspicious/noArrayIndexKey: the values are positional, {{1}} to {{n}}
              key={i}
              label={`Value of {{${i + 1}}}`}
              id={`wa-param-${i}`}
            >
              <input
                id={`wa-param-${i}`}
                required
                maxLength={1024}
                value={params[i] ?? ""}
                onChange={(event) => {
                  const next = [...params];
                  next[i] = event.target.value;
                  setParams(next);
                }}
              />
            </Field>
          ))}
        </>
      ) : templates.data ? (
        <p>No approved template can be sent from this account.</p>
      ) : null}
      <button type="submit" className="primary" disabled={!template || send.isPending}>
        Send WhatsApp message
      </button>
      <ErrorNotice error={send.error} title="Not sent" />
      {send.data ? (
        <Success>
          Accepted by WhatsApp as <code>{send.data.message_id}</code>.
        </Success>
      ) : null}
    </form>
  );
}

/**
 * An account's sending domains as the email form needs them: mail is sent only from an approved one
 * (the API refuses any other `from`), so without one the form is not offered.
 */
function useSendingDomains() {
  const domains = useQuery({
    queryKey: ["email", "domains"],
    queryFn: () => data<EmailDomain[]>("/api/v2/email/domains"),
  });
  const named = (status: string) => (domains.data ?? []).filter((d) => d.status === status).map((d) => d.domain);
  return { loaded: domains.data !== undefined, approved: named("approved"), pending: named("pending") };
}

export function EmailForm() {
  const domains = useSendingDomains();
  const [draft, setDraft] = useState({ from: "", to: "", cc: "", subject: "", html: "" });
  const set = (change: Partial<typeof draft>) => setDraft((current) => ({ ...current, ...change }));
  const send = useMutation({
    mutationFn: () =>
      data<EmailSendAnswer>("/api/v2/email/send", {
        json: {
          from: draft.from,
          to: draft.to,
          ...(draft.cc.trim() ? { cc: draft.cc } : {}),
          subject: draft.subject,
          html: draft.html,
        },
      }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate();
  };
  if (domains.loaded && domains.approved.length === 0) {
    const waiting = domains.pending.length > 0;
    return (
      <div className="notice" data-testid="email-no-domain">
        <p>
          This account has no approved sending domain, so no email can be sent yet: mail goes out only from an address
          of a domain the operator has approved.
          {waiting
            ? ` ${domains.pending.join(", ")} ${domains.pending.length === 1 ? "is" : "are"} waiting for the operator's approval.`
            : ""}
        </p>
        <p>
          <Link to="/registrations#email-domains">
            {waiting ? "See" : "Add a domain in"} Registrations › Email sending domains
          </Link>
          , and publish its DKIM record there.
        </p>
      </div>
    );
  }
  const first = domains.approved[0];
  const fromHint = first
    ? `An address of an approved sending domain (${domains.approved.join(", ")}), e.g. Shop <news@${first}>`
    : "An address of an approved sending domain, e.g. Shop <news@shop.example.com>";
  return (
    <form onSubmit={submit} aria-label="Send an email">
      <Field label="From" id="email-from" hint={fromHint}>
        <input
          id="email-from"
          required
          aria-describedby="email-from-hint"
          value={draft.from}
          onChange={(event) => set({ from: event.target.value })}
        />
      </Field>
      <Field label="To" id="email-to" hint="Addresses separated by commas">
        <input
          id="email-to"
          required
          aria-describedby="email-to-hint"
          value={draft.to}
          onChange={(event) => set({ to: event.target.value })}
        />
      </Field>
      <Field label="Cc" id="email-cc">
        <input id="email-cc" value={draft.cc} onChange={(event) => set({ cc: event.target.value })} />
      </Field>
      <Field label="Subject" id="email-subject">
        <input
          id="email-subject"
          required
          maxLength={998}
          value={draft.subject}
          onChange={(event) => set({ subject: event.target.value })}
        />
      </Field>
      <Field label="Body (HTML)" id="email-html">
        <textarea
          id="email-html"
          rows={6}
          required
          value={draft.html}
          onChange={(event) => set({ html: event.target.value })}
        />
      </Field>
      <button type="submit" className="primary" disabled={send.isPending}>
        Send email
      </button>
      <ErrorNotice error={send.error} title="Not sent" />
      {send.data ? (
        <Success>
          Accepted as broadcast{" "}
          <Link to={`/messages?q=${encodeURIComponent(send.data.broadcast_id)}`}>{send.data.broadcast_id}</Link>.
        </Success>
      ) : null}
    </form>
  );
}

export function VoiceForm() {
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [text, setText] = useState("");
  const callers = useQuery({
    queryKey: ["registrations", "caller-ids"],
    queryFn: () => data<CallerId[]>("/api/v2/voice/caller-ids"),
  });
  const approved = (callers.data ?? []).filter((c) => c.status === "approved");
  const chosen = from || approved[0]?.number || "";
  const call = useMutation({
    mutationFn: () =>
      data<PlacedCall>("/api/v2/voice/calls", {
        json: { from: chosen, to, text },
      }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    call.mutate();
  };
  const characters = [...text.trim()].length;
  return (
    <form onSubmit={submit} aria-label="Place a voice call">
      <Field label="Caller number" id="voice-from">
        <select id="voice-from" value={chosen} onChange={(event) => setFrom(event.target.value)}>
          {approved.map((c) => (
            <option key={c.id} value={c.number}>
              {c.number}
            </option>
          ))}
        </select>
      </Field>
      <ErrorNotice error={callers.error} title="Caller numbers" />
      {callers.data && approved.length === 0 ? (
        <p>
          No approved caller number: <Link to="/registrations">ask for one</Link>.
        </p>
      ) : null}
      <Field label="Number to call" id="voice-to">
        <input id="voice-to" required inputMode="tel" value={to} onChange={(event) => setTo(event.target.value)} />
      </Field>
      <Field
        label="Text to speak"
        id="voice-text"
        hint={`${characters} of 1,000 characters; 450 characters cost 1 credit`}
      >
        <textarea
          id="voice-text"
          rows={4}
          required
          maxLength={1000}
          aria-describedby="voice-text-hint"
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
      </Field>
      <button type="submit" className="primary" disabled={!chosen || call.isPending}>
        Place call
      </button>
      <ErrorNotice error={call.error} title="Not placed" />
      {call.data ? (
        <Success>
          Call accepted ({plural(call.data.credits, "credit")}).{" "}
          <Link to={`/messages/${call.data.message_id}`}>Follow call {call.data.message_id}</Link>
        </Success>
      ) : null}
    </form>
  );
}
