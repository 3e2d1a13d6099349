// Send an SMS: recipient, sender ID, route, the text with its live counter (characters,
// encoding, segments), and a DLT template picker that fills the template's {#var#} slots.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { data } from "../api.js";
import { plural } from "../format.js";
import { Link, useLocation } from "../router.js";
import { countSms, fillTemplate, MAX_SEGMENTS, templateParts } from "../sms-counter.js";
import type { SenderId, SmsAccepted, Template } from "../types.js";
import { ErrorNotice, Field, PageTitle, Success } from "../ui.js";
import { EmailForm, VoiceForm, WhatsAppForm } from "./SendOther.js";

export function SmsCounter({ text, unicode }: { text: string; unicode: boolean }) {
  const count = countSms(text, unicode);
  return (
    <p className={`counter${count.tooLong ? " too-long" : ""}`} aria-live="polite" data-testid="sms-counter">
      <span data-testid="counter-characters">{count.characters} characters</span> ·{" "}
      <span data-testid="counter-encoding">{count.encoding === "gsm7" ? "GSM-7" : "UCS-2 (Unicode)"}</span> ·{" "}
      <span data-testid="counter-segments">
        {count.segments} {count.segments === 1 ? "segment" : "segments"}
      </span>{" "}
      · {count.remaining} left in this segment ({count.perSegment} per segment)
      {count.nonGsm.length > 0 ? (
        <span className="warn" data-testid="counter-non-gsm">
          {" "}
          · Not in GSM-7: {count.nonGsm.join(" ")}
        </span>
      ) : null}
      {count.tooLong ? <span className="warn"> · Too long: at most {MAX_SEGMENTS} segments</span> : null}
    </p>
  );
}

export function TemplateFiller({
  template,
  values,
  onChange,
}: {
  template: Template;
  values: string[];
  onChange: (values: string[]) => void;
}) {
  const { variables } = templateParts(template.content);
  if (variables === 0) return <p className="hint">This template has no variable parts.</p>;
  return (
    <fieldset className="variables">
      <legend>Variable parts of “{template.name}”</legend>
      {Array.from({ length: variables }, (_, i) => (
        <Field
          // biome-ignore lint/suspicious/noArrayIndexKey: slots are positional
          key={i}
          label={`Variable ${i + 1}`}
          id={`var-${i}`}
          hint="Up to 30 characters"
        >
          <input
            id={`var-${i}`}
            maxLength={30}
            value={values[i] ?? ""}
            aria-describedby={`var-${i}-hint`}
            onChange={(event) => {
              const next = [...values];
              next[i] = event.target.value;
              onChange(next);
            }}
          />
        </Field>
      ))}
    </fieldset>
  );
}

export function SendSmsForm() {
  const queryClient = useQueryClient();
  const formId = useId();
  const [recipient, setRecipient] = useState("");
  const [sender, setSender] = useState("");
  const [route, setRoute] = useState("transactional");
  const [text, setText] = useState("");
  const [unicode, setUnicode] = useState(false);
  const [templateId, setTemplateId] = useState("");
  const [values, setValues] = useState<string[]>([]);

  const senders = useQuery({
    queryKey: ["sender-ids", "approved"],
    queryFn: () => data<SenderId[]>("/api/v2/sender-ids?status=approved"),
  });
  const templates = useQuery({
    queryKey: ["templates", "approved"],
    queryFn: () => data<Template[]>("/api/v2/templates?status=approved&per_page=100"),
  });
  const template = templates.data?.find((t) => String(t.id) === templateId);
  const message = template ? fillTemplate(template.content, values) : text;
  const count = countSms(message, unicode);
  const chosenSender = sender || senders.data?.[0]?.sender_id || "";

  const send = useMutation({
    mutationFn: () =>
      data<SmsAccepted>("/api/v2/sms/send", {
        json: {
          recipient,
          sender_id: chosenSender,
          message,
          route,
          ...(unicode || count.encoding === "ucs2" ? { unicode: true } : {}),
          ...(template?.dlt_template_id ? { dlt_template_id: template.dlt_template_id } : {}),
        },
      }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["messages"] });
      void queryClient.invalidateQueries({ queryKey: ["balance"] });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate();
  };

  return (
    <form onSubmit={submit} aria-label="Send an SMS" id={formId} className="send-form">
      <Field label="To" id="recipient" hint="A 10-digit Indian mobile number, also +91…">
        <input
          id="recipient"
          inputMode="tel"
          autoComplete="off"
          required
          value={recipient}
          aria-describedby="recipient-hint"
          onChange={(event) => setRecipient(event.target.value)}
        />
      </Field>
      <Field label="Sender ID" id="sender">
        <select id="sender" value={chosenSender} onChange={(event) => setSender(event.target.value)}>
          {(senders.data ?? []).map((s) => (
            <option key={s.sender_id} value={s.sender_id}>
              {s.sender_id}
            </option>
          ))}
        </select>
      </Field>
      <ErrorNotice error={senders.error} title="Sender IDs" />
      <Field label="Route" id="route">
        <select id="route" value={route} onChange={(event) => setRoute(event.target.value)}>
          <option value="transactional">Transactional</option>
          <option value="promotional">Promotional</option>
        </select>
      </Field>
      <Field label="DLT template" id="template" hint="Pick an approved template to fill its variable parts">
        <select
          id="template"
          value={templateId}
          aria-describedby="template-hint"
          onChange={(event) => {
            setTemplateId(event.target.value);
            setValues([]);
          }}
        >
          <option value="">None: write the text</option>
          {(templates.data ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
              {t.dlt_template_id ? ` (${t.dlt_template_id})` : ""}
            </option>
          ))}
        </select>
      </Field>
      <ErrorNotice error={templates.error} title="Templates" />
      {template ? <TemplateFiller template={template} values={values} onChange={setValues} /> : null}
      <Field label="Message" id="message">
        <textarea
          id="message"
          rows={5}
          required
          readOnly={Boolean(template)}
          value={message}
          aria-describedby="message-counter"
          onChange={(event) => setText(event.target.value)}
        />
      </Field>
      <div id="message-counter">
        <SmsCounter text={message} unicode={unicode} />
      </div>
      <div className="check">
        <input id="unicode" type="checkbox" checked={unicode} onChange={(event) => setUnicode(event.target.checked)} />
        <label htmlFor="unicode">Send as Unicode (UCS-2), even when the text fits GSM-7</label>
      </div>
      <button type="submit" className="primary" disabled={send.isPending || count.tooLong}>
        {send.isPending ? "Sending…" : "Send SMS"}
      </button>
      <ErrorNotice error={send.error} title="Not sent" />
      {send.data ? (
        <Success>
          Accepted: {plural(send.data.credits, "credit")}.{" "}
          <Link to={`/messages/${send.data.message_id}`} data-testid="sent-link">
            Follow message {send.data.message_id}
          </Link>
        </Success>
      ) : null}
    </form>
  );
}

const CHANNELS = [
  ["sms", "SMS"],
  ["whatsapp", "WhatsApp"],
  ["email", "Email"],
  ["voice", "Voice call"],
] as const;

export default function Send() {
  const { query } = useLocation();
  const channel = query.get("channel") ?? "sms";
  return (
    <>
      <PageTitle>Send</PageTitle>
      <nav aria-label="Channel" className="tabs">
        <ul>
          {CHANNELS.map(([id, label]) => (
            <li key={id}>
              <Link
                to={id === "sms" ? "/send" : `/send?channel=${id}`}
                aria-current={channel === id ? "page" : undefined}
              >
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {channel === "whatsapp" ? <WhatsAppForm /> : null}
      {channel === "email" ? <EmailForm /> : null}
      {channel === "voice" ? <VoiceForm /> : null}
      {channel === "sms" || !CHANNELS.some(([id]) => id === channel) ? <SendSmsForm /> : null}
    </>
  );
}
