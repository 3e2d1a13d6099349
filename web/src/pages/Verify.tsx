// The Verify API's page: the account's verify settings (the operator sets them; read here) and
// the conversion of its codes per channel and country (GET /api/v2/verify/analytics), for a
// window the URL holds; each row a card, so the page reads on a phone.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { request, withQuery } from "../api.js";
import { formatNumber } from "../format.js";
import { navigate, useLocation } from "../router.js";
import type { VerifyAnalytics, VerifySettings } from "../types.js";
import { Busy, ErrorNotice, Field, PageTitle } from "../ui.js";

const CHANNEL_NAMES: Record<string, string> = { sms: "SMS", whatsapp: "WhatsApp", voice: "Voice", email: "Email" };

function SettingsFacts({ settings }: { settings: VerifySettings }) {
  const fact = (label: string, value: string | null) => (
    <>
      <dt>{label}</dt>
      <dd className="text-cell">{value ?? "not set"}</dd>
    </>
  );
  return (
    <dl className="facts">
      {fact("SMS sender ID", settings.verify_sender_id)}
      {fact("SMS DLT template", settings.verify_template_id)}
      {fact("WhatsApp template", settings.verify_whatsapp_template)}
      {fact("Voice caller ID", settings.verify_caller_id)}
      {fact("Email sender", settings.verify_email_from)}
      {fact("Resend order", settings.verify_channels.map((c) => CHANNEL_NAMES[c] ?? c).join(" → "))}
      {fact("Countries", settings.verify_countries.join(", "))}
    </dl>
  );
}

type Conversion = VerifyAnalytics["total"];

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)} %`;
}

function ConversionFacts({ row }: { row: Conversion }) {
  return (
    <dl className="facts">
      <dt>Started</dt>
      <dd>{formatNumber(row.started)}</dd>
      <dt>Approved</dt>
      <dd>{formatNumber(row.approved)}</dd>
      <dt>Conversion</dt>
      <dd>{percent(row.conversion_rate)}</dd>
      <dt>Mean time to approve</dt>
      <dd>{row.avg_seconds_to_approve === null ? "—" : `${row.avg_seconds_to_approve} s`}</dd>
    </dl>
  );
}

function WindowFilters({ from, to }: { from: string; to: string }) {
  const [draft, setDraft] = useState({ from, to });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    navigate(withQuery("/verify", draft));
  };
  return (
    <form className="filters" onSubmit={apply} aria-label="Conversion window">
      {(["from", "to"] as const).map((name) => (
        <Field key={name} label={name === "from" ? "From (date)" : "To (date)"} id={`verify-${name}`}>
          <input
            id={`verify-${name}`}
            type="date"
            value={draft[name]}
            onChange={(event) => setDraft({ ...draft, [name]: event.target.value })}
          />
        </Field>
      ))}
      <button type="submit" className="primary">
        Show
      </button>
    </form>
  );
}

export default function Verify() {
  const { query } = useLocation();
  const range = { from: query.get("from") ?? "", to: query.get("to") ?? "" };
  const settings = useQuery({
    queryKey: ["verify-settings"],
    queryFn: () => request<{ data: VerifySettings }>("/api/v2/verify/settings"),
  });
  const url = withQuery("/api/v2/verify/analytics", range);
  const analytics = useQuery({
    queryKey: ["verify-analytics", url],
    queryFn: () => request<{ data: VerifyAnalytics }>(url),
  });
  return (
    <>
      <PageTitle>Verify</PageTitle>
      <p>One-time codes sent with POST /api/v2/verify, and how many of them were approved.</p>
      <section aria-labelledby="verify-settings-title">
        <h2 id="verify-settings-title">Settings</h2>
        <p className="hint">Set by the operator; ask them to change one.</p>
        <ErrorNotice error={settings.error} />
        {settings.isPending ? <Busy /> : null}
        {settings.data ? <SettingsFacts settings={settings.data.data} /> : null}
      </section>
      <section aria-labelledby="verify-conversion-title">
        <h2 id="verify-conversion-title">Conversion</h2>
        <WindowFilters from={range.from} to={range.to} key={JSON.stringify(range)} />
        <ErrorNotice error={analytics.error} />
        {analytics.isPending ? <Busy /> : null}
        {analytics.data ? (
          <>
            <h3>All channels</h3>
            <ConversionFacts row={analytics.data.data.total} />
            <ul className="plain" aria-label="Conversion by channel and country">
              {analytics.data.data.by_channel_country.map((row) => (
                <li className="card" key={`${row.channel}-${row.country ?? ""}`}>
                  <h3>
                    {CHANNEL_NAMES[row.channel] ?? row.channel} · {row.country ?? "email"}
                  </h3>
                  <ConversionFacts row={row} />
                </li>
              ))}
            </ul>
            {analytics.data.data.by_channel_country.length === 0 ? <p>No verifications in this window.</p> : null}
          </>
        ) : null}
      </section>
    </>
  );
}
