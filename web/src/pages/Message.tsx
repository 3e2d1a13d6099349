// One message: its timeline (accepted, submitted, each part's receipt, delivered or failed
// with the reason), its cost, the carrier's id and the webhook deliveries it caused (each attempt
// with the URL it posted to: a delivery follows the account's current URL), from
// GET /api/v2/messages/{id}. Refreshed while the message is not final.
import { useQuery } from "@tanstack/react-query";
import { data } from "../api.js";
import { formatInstantsIn, formatTime, plural, walletName, zoneLabel } from "../format.js";
import type { OperatorMessageDetail } from "../operator-types.js";
import { Link, useLocation } from "../router.js";
import { canDo, useSignedIn } from "../session.js";
import type { MessageDetail, WebhookSettings } from "../types.js";
import { Busy, ErrorNotice, PageTitle, StatusBadge } from "../ui.js";
import { useAccountZone } from "./account-zone.js";
import { ChainSection } from "./MessageChain.js";
import { OperatorMessageFacts } from "./message-facts.js";
import { TreeTrail, trailFrom, trailLink, type WayBack, wayBackOf } from "./subaccount-trail.js";

const FINAL = new Set(["delivered", "failed", "cancelled", "read"]);

/** A call's outcome as the voice carrier reported it: its status, how long it lasted, the units charged. */
function callWords(call: MessageDetail["message"]["call"]): string {
  if (!call?.status) return "not placed yet";
  return [
    call.status,
    call.duration_seconds === null || call.duration_seconds === undefined
      ? ""
      : `${plural(call.duration_seconds, "second")} long`,
    call.units === null || call.units === undefined ? "" : plural(call.units, "unit"),
  ]
    .filter(Boolean)
    .join(", ");
}

/**
 * Whether its credits came back, and when not for a failed message, why: the first question a
 * support person is asked about one. A failure after the carrier took the message keeps its
 * charge unless the operator refunds that failure's reason (Carrier refunds).
 */
function refundWords(
  message: MessageDetail["message"],
  refunded: boolean,
  carrierTookIt: boolean,
  operator: boolean,
): string {
  if (refunded) return " (refunded)";
  if (message.status !== "failed" || !carrierTookIt) return "";
  const why =
    message.error?.code === "expired"
      ? "its carrier took it, and no delivery report came before it expired"
      : "its carrier took it before it failed";
  return ` (not refunded: ${why}${operator ? "; Carrier refunds sets which carriers' failures are refunded" : ""})`;
}

export default function MessagePage({ params }: { params: Record<string, string> }) {
  const id = params.id ?? "";
  const { query } = useLocation();
  return (
    <MessageView
      path={`/api/v2/messages/${encodeURIComponent(id)}`}
      back="/messages"
      via={query.getAll("via")}
      wayBack={wayBackOf(query)}
    />
  );
}

/**
 * A reseller's page of a message of an account below it (the last of `trail`): whose it is, and the
 * way to its other messages.
 */
function SubAccountFact({ trail, wayBack }: { trail: readonly string[]; wayBack: WayBack }) {
  return (
    <>
      <dt>Sub-account</dt>
      <dd data-testid="message-subaccount">
        <Link to={trailLink("/messages", trail, wayBack)}>{trail.at(-1)}</Link> (its messages) ·{" "}
        <Link to={trailLink("/refusals", trail, wayBack)}>its refused sends</Link>
      </dd>
    </>
  );
}

/**
 * One message from `path` (the account's route, or the operator's, whose answer names the account
 * too), with a link `back` to the list it came from; a sub-account's message shows its trail and
 * links back to its messages, `via` the accounts above it (those the answer names, and the
 * `wayBack` its list was opened with). The operator's
 * (`operator`) does not read /api/v2/webhooks: those are the operator's own settings, not the
 * message's account's, and operator_support may not read them (a 403 in the browser's console).
 */
export function MessageView({
  path,
  back,
  operator = false,
  via = [],
  wayBack = "holder",
}: {
  path: string;
  back: string;
  operator?: boolean;
  via?: readonly string[];
  wayBack?: WayBack;
}) {
  const session = useSignedIn();
  const detail = useQuery({
    queryKey: ["message", path],
    queryFn: () => data<MessageDetail & Partial<Pick<OperatorMessageDetail, "account" | "dlt" | "charges">>>(path),
    refetchInterval: (query) => (query.state.data && FINAL.has(query.state.data.message.status) ? 10_000 : 1_000),
  });
  const { zone: tz, note: zoneNote } = useAccountZone(detail.data?.account, session.time_zone);

  if (detail.error) {
    return (
      <>
        <PageTitle>Message</PageTitle>
        <ErrorNotice error={detail.error} />
        <p>
          <Link to={back}>Back to the messages</Link>
        </p>
      </>
    );
  }
  if (!detail.data) return <Busy />;
  const { message, cost, carrier, parts, timeline, webhooks, subaccount, subaccount_via } = detail.data;
  // The levels the answer names are the truth; `via` is what the list it was opened from had.
  const trail = trailFrom(subaccount, subaccount_via ?? via);
  const backTo = subaccount ? trailLink("/messages", trail, wayBack) : back;
  // A carrier's refusal at submit keeps its connector, with no id of the carrier's.
  const refusedAtSubmit = message.status === "failed" && carrier.connector !== null && !carrier.vendor_message_id;
  return (
    <>
      <PageTitle>Message to {message.mobile}</PageTitle>
      {subaccount ? <TreeTrail trail={trail} page="message" /> : null}
      <p>
        <StatusBadge status={message.status} testId="message-status" />
      </p>
      {message.error ? (
        <div className="notice error" role="note">
          Failed: {message.error.message} <code>{message.error.code}</code>
          {message.error.reason ? (
            <>
              {" "}
              Reason <code data-testid="message-reason">{message.error.reason}</code>, carrier code{" "}
              <code>{message.error.carrier_code}</code>
            </>
          ) : null}
        </div>
      ) : null}
      <dl className="facts">
        {detail.data.account !== undefined ? (
          <>
            <dt>Account</dt>
            <dd data-testid="message-account">
              {detail.data.account ? (
                <Link to={`/operator/accounts/${encodeURIComponent(detail.data.account)}`}>{detail.data.account}</Link>
              ) : (
                "removed"
              )}
            </dd>
          </>
        ) : null}
        {subaccount ? <SubAccountFact trail={trail} wayBack={wayBack} /> : null}
        <dt>Message id</dt>
        <dd>
          <code>{message.message_id}</code>
        </dd>
        <dt>Broadcast id</dt>
        <dd>
          <code>{message.broadcast_id}</code>
        </dd>
        <dt>Channel</dt>
        <dd>{walletName(message.channel)}</dd>
        <dt>From</dt>
        <dd>{message.sender_id}</dd>
        <dt>Route</dt>
        <dd>{message.route}</dd>
        <dt>Text</dt>
        <dd className="text-cell">{message.message}</dd>
        {message.clicks === undefined ? null : (
          <>
            <dt>Short-link clicks</dt>
            <dd data-testid="message-clicks">{plural(message.clicks, "click")} (each in the timeline below)</dd>
          </>
        )}
        {message.channel === "voice" ? (
          <>
            <dt>Call</dt>
            <dd data-testid="message-call">{callWords(message.call)}</dd>
          </>
        ) : (
          <>
            <dt>Encoding and parts</dt>
            <dd>{[message.encoding, plural(message.segments, "part")].filter(Boolean).join(", ")}</dd>
          </>
        )}
        <dt>Cost</dt>
        <dd data-testid="message-cost">
          {plural(cost.credits, "credit")} from the {walletName(cost.wallet)} wallet
          {refundWords(message, cost.refunded, carrier.vendor_message_id !== null, operator)}
        </dd>
        <dt>Carrier</dt>
        <dd data-testid="carrier">
          {carrier.connector === null
            ? carrierlessWords(message.status)
            : refusedAtSubmit
              ? `${carrier.connector}, which refused it at submit (the reason is above)`
              : carrier.connector}
        </dd>
        <dt>Carrier's id</dt>
        <dd data-testid="carrier-id">
          {carrier.vendor_message_id ? (
            <code>{carrier.vendor_message_id}</code>
          ) : refusedAtSubmit ? (
            "none: the carrier refused it"
          ) : (
            "none yet"
          )}
        </dd>
      </dl>

      {detail.data.charges ? (
        <OperatorMessageFacts dlt={detail.data.dlt ?? null} charges={detail.data.charges} />
      ) : null}

      {detail.data.chain ? (
        <ChainSection
          link={detail.data.chain}
          messageId={message.message_id}
          tz={tz}
          own={detail.data.account === undefined && !subaccount}
        />
      ) : null}

      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        {zoneNote}
        <ol className="timeline" data-testid="timeline">
          {timeline.map((event, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the timeline is ordered and never reordered
            <li key={index}>
              <time dateTime={event.at}>{formatTime(event.at, tz)}</time> <strong>{event.event}</strong>
              {event.detail ? <span className="detail"> {formatInstantsIn(event.detail, tz)}</span> : null}
            </li>
          ))}
        </ol>
      </section>

      {parts.length > 1 ? (
        <section aria-labelledby="parts-title">
          <h2 id="parts-title">Parts</h2>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Part</th>
                  <th scope="col">Status</th>
                  <th scope="col">Carrier's id</th>
                  <th scope="col">Receipt ({zoneLabel(tz)})</th>
                </tr>
              </thead>
              <tbody>
                {parts.map((part) => (
                  <tr key={part.part}>
                    <td>{part.part}</td>
                    <td>
                      <StatusBadge status={part.status} /> {part.error_code ?? ""}
                    </td>
                    <td>
                      <code>{part.vendor_message_id}</code>
                    </td>
                    <td>{formatTime(part.done_at, tz)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ) : null}

      <section aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Webhook deliveries</h2>
        {webhooks.length === 0 ? (
          // The webhook settings are read with `develop`: a role without it is told only what is so.
          // A sub-account's message follows its own webhook settings, not the reader's.
          operator || subaccount || !canDo(session, "develop") ? (
            <p data-testid="webhook-note">None for this message.</p>
          ) : (
            <NoWebhookNote status={message.status} />
          )
        ) : null}
        {webhooks.map((delivery) => (
          <details key={delivery.id} className="delivery">
            <summary>
              The {String(delivery.payload.status ?? delivery.event)} report: <StatusBadge status={delivery.status} />{" "}
              after {plural(delivery.attempts, "attempt")}
              {/* Whether the customer's endpoint will still get it, and when: what support is asked. */}
              {delivery.status === "pending" && delivery.next_attempt_at
                ? `; next attempt ${formatTime(delivery.next_attempt_at, tz)}`
                : delivery.status === "failed"
                  ? "; no more attempts"
                  : ""}
            </summary>
            <p>
              <code>{delivery.url}</code>
            </p>
            <ul>
              {delivery.attempts_log.map((attempt) => (
                <li key={attempt.attempt} data-testid="attempt">
                  Attempt {attempt.attempt}, {formatTime(attempt.at, tz)}, to <code>{attempt.url}</code>:{" "}
                  {attempt.status_code ?? "no answer"} in {attempt.latency_ms} ms
                  {attempt.error ? ` (${attempt.error})` : ""}
                </li>
              ))}
            </ul>
          </details>
        ))}
      </section>
      <p>
        <Link to={backTo}>Back to the messages</Link>
      </p>
    </>
  );
}

/** Why a message has no carrier: not handed to one yet, or it ended before any took it. */
function carrierlessWords(status: string): string {
  if (status === "failed") return "none took it: it failed before a carrier accepted it (the reason is above)";
  if (status === "cancelled") return "none: it was cancelled before it was handed to a carrier";
  return "not yet handed to a carrier";
}

/** Why no webhook is listed: no URL is set, none is due yet, or the URL came after the message's last change. */
function NoWebhookNote({ status }: { status: string }) {
  const settings = useQuery({
    queryKey: ["webhooks", "settings"],
    queryFn: () => data<WebhookSettings>("/api/v2/webhooks"),
  });
  if (!settings.data) return null;
  let words: string;
  if (!settings.data.delivery_report) {
    words = "No webhook is sent for this account's messages: no delivery report URL is set (Webhooks, in the menu).";
  } else if (status === "queued" || status === "scheduled") {
    words = "None yet: the delivery report URL is told when the message is submitted to a carrier and when it ends.";
  } else {
    words = "None for this message: the delivery report URL was set after the message's last change.";
  }
  return <p data-testid="webhook-note">{words}</p>;
}
