// The operator's alerts: the alerts raised now (read every 5 s) and the settings form (each
// alert's switch and window, the alert URL and address), saved with PUT /admin/api/alerts; the
// secret the alert webhooks are signed with.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { data } from "../../api.js";
import { formatTime } from "../../format.js";
import type { AlertSettings } from "../../operator-types.js";
import { useSignedIn } from "../../session.js";
import { StaffReadOnly } from "../../staff-gate.js";
import { Busy, ErrorNotice, Field, PageTitle, Success } from "../../ui.js";

type Kind = "low_balance" | "connector_down" | "webhook_failing" | "delivery_rate";
const NAMES: Record<Kind, string> = {
  low_balance: "Low balance",
  connector_down: "Connector down",
  webhook_failing: "Webhook endpoint failing",
  delivery_rate: "Delivery rate",
};

type Draft = Omit<AlertSettings, "secret" | "email_configured" | "active">;
/** The form's text fields (numbers and the threshold as typed). */
interface Text {
  url: string;
  email: string;
  threshold: string;
  seconds: string;
  minutes: string;
  messages: string;
  percent: string;
}

function textOf(s: Draft): Text {
  return {
    url: s.url ?? "",
    email: s.email ?? "",
    threshold: s.low_balance.threshold === null ? "" : String(s.low_balance.threshold),
    seconds: String(s.connector_down.seconds),
    minutes: String(s.webhook_failing.minutes),
    messages: String(s.delivery_rate.messages),
    percent: String(s.delivery_rate.percent),
  };
}

function NumberField(props: { id: string; label: string; value: string; hint: string; onChange: (v: string) => void }) {
  return (
    <Field label={props.label} id={props.id} hint={props.hint}>
      <input
        id={props.id}
        inputMode="decimal"
        value={props.value}
        aria-describedby={`${props.id}-hint`}
        onChange={(event) => props.onChange(event.target.value)}
      />
    </Field>
  );
}

export default function Alerts() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const alerts = useQuery({
    queryKey: ["operator", "alerts"],
    queryFn: () => data<AlertSettings>("/admin/api/alerts"),
    refetchInterval: 5_000,
  });
  const [on, setOn] = useState<Record<string, boolean>>({});
  const [text, setText] = useState<Text | undefined>();
  const loaded = alerts.data;
  useEffect(() => {
    if (loaded && text === undefined) {
      setText(textOf(loaded));
      setOn(Object.fromEntries((Object.keys(NAMES) as Kind[]).map((k) => [k, loaded[k].enabled])));
    }
  }, [loaded, text]);
  const save = useMutation({
    mutationFn: (t: Text) =>
      data<AlertSettings>("/admin/api/alerts", {
        method: "PUT",
        json: {
          url: t.url.trim() || null,
          email: t.email.trim() || null,
          low_balance: { enabled: on.low_balance, threshold: t.threshold.trim() === "" ? null : Number(t.threshold) },
          connector_down: { enabled: on.connector_down, seconds: Number(t.seconds) },
          webhook_failing: { enabled: on.webhook_failing, minutes: Number(t.minutes) },
          delivery_rate: { enabled: on.delivery_rate, messages: Number(t.messages), percent: Number(t.percent) },
        },
      }),
    onSuccess: (answer) => queryClient.setQueryData(["operator", "alerts"], answer),
  });
  if (alerts.error && !loaded) {
    return (
      <>
        <PageTitle>Alerts</PageTitle>
        <ErrorNotice error={alerts.error} />
      </>
    );
  }
  if (!loaded || !text) return <Busy />;
  const tz = session.time_zone;
  const set = (field: keyof Text) => (value: string) => setText({ ...text, [field]: value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(text);
  };
  return (
    <>
      <PageTitle>Alerts</PageTitle>
      <section aria-labelledby="active-title">
        <h2 id="active-title">Active now</h2>
        {loaded.active.length === 0 ? (
          <p data-testid="alerts-none">No alert is raised.</p>
        ) : (
          <ul className="plain" data-testid="alerts-active">
            {loaded.active.map((alert) => (
              <li key={`${alert.alert} ${alert.subject}`} className="card" data-testid="alert">
                <p>
                  <strong>{NAMES[alert.alert]}</strong>: {alert.subject}
                </p>
                <p>{alert.detail}</p>
                <p className="hint">Raised {formatTime(alert.raised_at, tz)}</p>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="settings-title">
        <h2 id="settings-title">Settings</h2>
        <StaffReadOnly capability="staff_admin" what="changing the alert settings">
          <form onSubmit={submit} aria-label="Alert settings">
            <Field
              label="Alert URL"
              id="alert-url"
              hint="Every raise and clear is POSTed here, signed like every webhook"
            >
              <input
                id="alert-url"
                type="url"
                value={text.url}
                aria-describedby="alert-url-hint"
                onChange={(event) => set("url")(event.target.value)}
              />
            </Field>
            <Field
              label="Alert email"
              id="alert-email"
              hint={loaded.email_configured ? "Every raise and clear is mailed here" : "Not sent: SMTP_URL is not set"}
            >
              <input
                id="alert-email"
                type="email"
                value={text.email}
                aria-describedby="alert-email-hint"
                onChange={(event) => set("email")(event.target.value)}
              />
            </Field>
            {Object.entries(NAMES).map(([kind, name]) => (
              <div className="check" key={kind}>
                <input
                  id={`alert-on-${kind}`}
                  type="checkbox"
                  checked={on[kind] ?? false}
                  onChange={(event) => setOn({ ...on, [kind]: event.target.checked })}
                />
                <label htmlFor={`alert-on-${kind}`}>{name}</label>
              </div>
            ))}
            <NumberField
              id="alert-threshold"
              label="Low balance threshold (credits)"
              value={text.threshold}
              hint={`For accounts without their own; empty: only those (${loaded.low_balance.wallet} wallet)`}
              onChange={set("threshold")}
            />
            <NumberField
              id="alert-seconds"
              label="Connector down for (seconds)"
              value={text.seconds}
              hint="Raised once a connector has been down this long"
              onChange={set("seconds")}
            />
            <NumberField
              id="alert-minutes"
              label="Webhook failing for (minutes)"
              value={text.minutes}
              hint="Raised once an endpoint's deliveries have failed this long"
              onChange={set("minutes")}
            />
            <NumberField
              id="alert-messages"
              label="Delivery rate over the last (messages)"
              value={text.messages}
              hint="A connector's last final messages"
              onChange={set("messages")}
            />
            <NumberField
              id="alert-percent"
              label="Delivery rate below (%)"
              value={text.percent}
              hint="Raised when fewer of them were delivered"
              onChange={set("percent")}
            />
            <button type="submit" className="primary" disabled={save.isPending}>
              Save alert settings
            </button>
          </form>
        </StaffReadOnly>
        <ErrorNotice error={save.error} title="Not saved" />
        {save.isSuccess ? <Success>Saved.</Success> : null}
        {loaded.secret ? (
          <p>
            Signed with <code className="secret">{loaded.secret}</code> (the webhook secret of the operator account that
            set the URL).
          </p>
        ) : null}
      </section>
    </>
  );
}
