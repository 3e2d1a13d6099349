// Webhooks: the URLs per event, the signing secret (rotate), a test event, and the delivery
// log (status, attempts with the URL each posted to, when and its latency, when a failing one is
// tried next, the body) with redelivery of a finished delivery. A delivery follows the account's
// current URL, so its attempts may differ.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { data, paged } from "../api.js";
import { formatTime } from "../format.js";
import { useSignedIn } from "../session.js";
import type { WebhookDelivery, WebhookSecret, WebhookSettings } from "../types.js";
import { Busy, ConfirmButton, ErrorNotice, Field, Pager, PageTitle, StatusBadge, Success } from "../ui.js";

/** Whether the endpoint will still get a delivery, and when (as the message page says it). */
function RetryNote({ delivery, timeZone }: { delivery: WebhookDelivery; timeZone: string }) {
  if (delivery.status === "pending" && delivery.next_attempt_at) {
    return <p data-testid="delivery-retry">Next attempt {formatTime(delivery.next_attempt_at, timeZone)}</p>;
  }
  return delivery.status === "failed" ? <p data-testid="delivery-retry">No more attempts.</p> : null;
}

function DeliveryLog() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const log = useQuery({
    queryKey: ["webhooks", "deliveries", page],
    queryFn: () => paged<WebhookDelivery>("/api/v2/webhooks/deliveries", { page, per_page: 25 }),
    refetchInterval: 2_000,
  });
  const redeliver = useMutation({
    mutationFn: (id: number) => data<WebhookDelivery>(`/api/v2/webhooks/deliveries/${id}/redeliver`, { json: {} }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["webhooks", "deliveries"] }),
  });
  return (
    <section aria-labelledby="log-title">
      <h2 id="log-title">Delivery log</h2>
      <ErrorNotice error={log.error} />
      <ErrorNotice error={redeliver.error} title="Not redelivered" />
      {redeliver.data ? <Success>Queued again as delivery #{redeliver.data.id}.</Success> : null}
      {log.isPending ? <Busy /> : null}
      {log.data?.data.length === 0 ? <p>No deliveries yet.</p> : null}
      <ul className="plain" data-testid="deliveries">
        {log.data?.data.map((delivery) => (
          <li key={delivery.id} className="delivery" data-testid="delivery">
            <p>
              <strong>#{delivery.id}</strong> {delivery.event}
              {delivery.redelivery_of ? ` (redelivery of #${delivery.redelivery_of})` : ""} →{" "}
              <StatusBadge status={delivery.status} /> {delivery.attempts}{" "}
              {delivery.attempts === 1 ? "attempt" : "attempts"}, {formatTime(delivery.created_at, session.time_zone)}
            </p>
            <ul>
              {delivery.attempts_log.map((attempt) => (
                <li key={attempt.attempt} data-testid="attempt">
                  Attempt {attempt.attempt}, {formatTime(attempt.at, session.time_zone)}, to <code>{attempt.url}</code>:{" "}
                  {attempt.status_code ?? "no answer"} in {attempt.latency_ms} ms
                  {attempt.error ? ` (${attempt.error})` : ""}
                </li>
              ))}
            </ul>
            <RetryNote delivery={delivery} timeZone={session.time_zone} />
            <details>
              <summary>Body</summary>
              <pre className="body">{JSON.stringify(delivery.payload, null, 2)}</pre>
            </details>
            {delivery.status === "delivered" || delivery.status === "failed" ? (
              <button type="button" onClick={() => redeliver.mutate(delivery.id)} disabled={redeliver.isPending}>
                Redeliver #{delivery.id}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      <Pager meta={log.data?.meta} onPage={setPage} />
    </section>
  );
}

export default function Webhooks() {
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: ["webhooks", "settings"],
    queryFn: () => data<WebhookSettings>("/api/v2/webhooks"),
  });
  const [urls, setUrls] = useState({ delivery_report: "", inbound_sms: "", low_balance: "", link_clicked: "" });
  useEffect(() => {
    if (settings.data) {
      setUrls({
        delivery_report: settings.data.delivery_report ?? "",
        inbound_sms: settings.data.inbound_sms ?? "",
        low_balance: settings.data.low_balance ?? "",
        link_clicked: settings.data.link_clicked ?? "",
      });
    }
  }, [settings.data]);
  const save = useMutation({
    mutationFn: () =>
      data<WebhookSettings>("/api/v2/webhooks", {
        method: "PUT",
        json: {
          delivery_report: urls.delivery_report.trim() || null,
          inbound_sms: urls.inbound_sms.trim() || null,
          low_balance: urls.low_balance.trim() || null,
          link_clicked: urls.link_clicked.trim() || null,
        },
      }),
    onSuccess: (answer) => queryClient.setQueryData(["webhooks", "settings"], answer),
  });
  const rotate = useMutation({
    mutationFn: () => data<WebhookSecret>("/api/v2/webhooks/rotate-secret", { json: {} }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["webhooks", "settings"] }),
  });
  const test = useMutation({
    mutationFn: () => data<WebhookDelivery>("/api/v2/webhooks/test", { json: { event: "delivery_report" } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["webhooks", "deliveries"] }),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <ErrorNotice error={settings.error} />
      <form onSubmit={submit} aria-label="Webhook URLs">
        <Field label="Delivery report URL" id="url-dlr" hint="https only; receives delivery_report events">
          <input
            id="url-dlr"
            type="url"
            value={urls.delivery_report}
            aria-describedby="url-dlr-hint"
            onChange={(event) => setUrls({ ...urls, delivery_report: event.target.value })}
          />
        </Field>
        <Field label="Inbound SMS URL" id="url-inbound" hint="Receives inbound_sms events">
          <input
            id="url-inbound"
            type="url"
            value={urls.inbound_sms}
            aria-describedby="url-inbound-hint"
            onChange={(event) => setUrls({ ...urls, inbound_sms: event.target.value })}
          />
        </Field>
        <Field
          label="Low balance URL"
          id="url-low-balance"
          hint="Optional; receives low_balance events when credits fall below the threshold the operator set"
        >
          <input
            id="url-low-balance"
            type="url"
            value={urls.low_balance}
            aria-describedby="url-low-balance-hint"
            onChange={(event) => setUrls({ ...urls, low_balance: event.target.value })}
          />
        </Field>
        <Field
          label="Link clicked URL"
          id="url-link-clicked"
          hint="Optional; receives link_clicked events when a recipient follows a tracked short link"
        >
          <input
            id="url-link-clicked"
            type="url"
            value={urls.link_clicked}
            aria-describedby="url-link-clicked-hint"
            onChange={(event) => setUrls({ ...urls, link_clicked: event.target.value })}
          />
        </Field>
        <button type="submit" className="primary" disabled={save.isPending}>
          Save URLs
        </button>
      </form>
      <ErrorNotice error={save.error} title="Not saved" />
      {save.isSuccess ? <Success>Saved.</Success> : null}
      <section aria-labelledby="secret-title">
        <h2 id="secret-title">Signing secret</h2>
        {settings.data?.secret ? (
          <code className="secret" data-testid="webhook-secret">
            {settings.data.secret}
          </code>
        ) : (
          <p>No secret yet: it is made when a URL is first set.</p>
        )}
        <ConfirmButton
          label="Rotate the secret"
          confirmLabel="Confirm: rotate the secret"
          warning="A new secret signs every webhook from now on; the current one keeps signing beside it for 24 hours. Give the receiver the new one within that time."
          disabled={!settings.data?.secret || rotate.isPending}
          onConfirm={() => rotate.mutate()}
        />
        <ErrorNotice error={rotate.error} title="Not rotated" />
        {rotate.isSuccess ? <Success>Rotated: the previous secret keeps signing for 24 hours.</Success> : null}
      </section>
      <section aria-labelledby="test-title">
        <h2 id="test-title">Test</h2>
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
          Send a test event
        </button>
        <ErrorNotice error={test.error} title="No test event" />
        {test.data ? <Success>Test event queued as delivery #{test.data.id}.</Success> : null}
      </section>
      <DeliveryLog />
    </>
  );
}
