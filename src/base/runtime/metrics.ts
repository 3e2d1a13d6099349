// Prometheus metrics. One registry per gateway instance (tests run several in one process).
// A per-account series is labelled by account_id, never by username: /metrics is read by more
// people than the accounts are.
// The gauges of what waits in the database are in backlog-metrics.ts.
import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from "prom-client";

export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

export interface Metrics {
  registry: Registry;
  /** Other threads of this process whose counters /metrics adds to this registry's (threads.ts). */
  peers: Array<() => Promise<MetricsSnapshot>>;
  httpDuration: Histogram<"method" | "route" | "status">;
  messagesAccepted: Counter<"channel">;
  messagesDispatched: Counter<"channel" | "connector">;
  messagesDelivered: Counter<"channel">;
  messagesFailed: Counter<"channel" | "stage">;
  acceptSeconds: Histogram<"channel">;
  endToEndSeconds: Histogram<"channel">;
  acceptBatchSize: Histogram;
  passwordChecks: Counter<"outcome">;
  connectorUp: Gauge<"connector" | "type">;
  routeScore: Gauge<"route" | "connector">;
  routeShare: Gauge<"route" | "connector">;
  connectorSessions: Gauge<"connector" | "state">;
  connectorResults: Counter<"connector" | "outcome">;
  connectorFailovers: Counter<"from" | "to">;
  connectorSubmitSeconds: Histogram<"connector">;
  carrierCallbacksUnauthenticated: Gauge<"reason">;
  reportRetries: Counter;
  earlyReportsDropped: Counter<"reason">;
  webhookAttempts: Counter<"event" | "result">;
  smppBinds: Gauge<"account_id" | "mode">;
  smppSubmits: Counter<"account_id" | "result">;
  smppDeliveries: Counter<"kind" | "result">;
  refusalsRecorded: Counter<"family">;
  refusalsDropped: Counter<"reason">;
  alertActive: Gauge<"alert" | "subject">;
  alertsRaised: Counter<"alert">;
  verifyRefusals: Counter<"code">;
  verifyPrefixesBlocked: Counter<string>;
  chainsStarted: Counter<string>;
  chainsCompleted: Counter<"outcome">;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: "switchboard_" });
  const registers = [registry];
  return {
    registry,
    peers: [],
    httpDuration: new Histogram({
      name: "switchboard_http_request_duration_seconds",
      help: "HTTP request duration by route",
      labelNames: ["method", "route", "status"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    messagesAccepted: new Counter({
      name: "switchboard_messages_accepted_total",
      help: "Messages accepted (durably stored and charged)",
      labelNames: ["channel"],
      registers,
    }),
    messagesDispatched: new Counter({
      name: "switchboard_messages_dispatched_total",
      help: "Messages handed to a connector",
      labelNames: ["channel", "connector"],
      registers,
    }),
    messagesDelivered: new Counter({
      name: "switchboard_messages_delivered_total",
      help: "Messages reported delivered",
      labelNames: ["channel"],
      registers,
    }),
    messagesFailed: new Counter({
      name: "switchboard_messages_failed_total",
      help: "Messages that failed, by stage (submit or delivery)",
      labelNames: ["channel", "stage"],
      registers,
    }),
    acceptSeconds: new Histogram({
      name: "switchboard_accept_seconds",
      help: "Time from a send request reaching the pipeline to its durable acceptance",
      labelNames: ["channel"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }),
    endToEndSeconds: new Histogram({
      name: "switchboard_end_to_end_seconds",
      help: "Time from acceptance to the final delivery report",
      labelNames: ["channel"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
    acceptBatchSize: new Histogram({
      name: "switchboard_accept_batch_size",
      help: "Sends committed together in one transaction (group commit)",
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500],
      registers,
    }),
    passwordChecks: new Counter({
      name: "switchboard_password_checks_total",
      help: "Password logins, but for those a remembered password answered, by outcome: verified (the password matched), wrong (it did not, or no such login), refused (locked, or the lock's budget spent: not checked)",
      labelNames: ["outcome"],
      registers,
    }),
    routeScore: new Gauge({
      name: "switchboard_route_score",
      help: "An adaptive route's score of a connector (0 to 1), from the delivery, latency and cost it measured",
      labelNames: ["route", "connector"],
      registers,
    }),
    routeShare: new Gauge({
      name: "switchboard_route_share",
      help: "The share of an adaptive route's traffic a connector gets (0 to 1)",
      labelNames: ["route", "connector"],
      registers,
    }),
    connectorUp: new Gauge({
      name: "switchboard_connector_up",
      help: "1 while a connector takes traffic, 0.5 degraded (some binds down), 0 down",
      labelNames: ["connector", "type"],
      registers,
    }),
    connectorSessions: new Gauge({
      name: "switchboard_connector_sessions",
      help: "SMPP connections of a connector, by state (bound, unbound)",
      labelNames: ["connector", "state"],
      registers,
    }),
    connectorResults: new Counter({
      name: "switchboard_connector_results_total",
      help: "Messages a connector was handed, by outcome (ok, retryable, failed, deferred)",
      labelNames: ["connector", "outcome"],
      registers,
    }),
    connectorFailovers: new Counter({
      name: "switchboard_connector_failovers_total",
      help: "Messages moved to the next connector of their route after a retryable failure",
      labelNames: ["from", "to"],
      registers,
    }),
    connectorSubmitSeconds: new Histogram({
      name: "switchboard_connector_submit_seconds",
      help: "Time a connector took to answer one submit call of the dispatcher (a batch of messages)",
      labelNames: ["connector"],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    carrierCallbacksUnauthenticated: new Gauge({
      name: "switchboard_carrier_callbacks_unauthenticated",
      help: "http-sms connectors whose delivery-report callbacks anyone who reaches the URL can call (no dlr.secret, no dlr.allowed_ips), by reason (legacy: stored before callbacks needed either; opted_out: dlr.unauthenticated)",
      labelNames: ["reason"],
      registers,
    }),
    reportRetries: new Counter({
      name: "switchboard_delivery_report_retries_total",
      help: "Delivery reports tried again from memory: no message carried their id yet, or the database failed",
      registers,
    }),
    earlyReportsDropped: new Counter({
      name: "switchboard_early_reports_dropped_total",
      help: "Kept delivery reports (their message unknown when they came) dropped, by reason (over_limit: EARLY_REPORTS_MAX_PER_CONNECTOR; expired: no message in 48 hours; before_due: the message carrying the id was due only after the report came; whatsapp_expired: a WhatsApp status whose wamid no message took in an hour; whatsapp_over_limit: WHATSAPP_EARLY_STATUSES_MAX; smpp_over_limit: an SMPP connector's 10,000 receipts kept for parts not stored yet; smpp_expired: an SMPP receipt whose part was not stored in 72 hours)",
      labelNames: ["reason"],
      registers,
    }),
    webhookAttempts: new Counter({
      name: "switchboard_webhook_attempts_total",
      help: "Webhook delivery attempts, by event and result (delivered; retrying: failed, tried again later; failed: given up)",
      labelNames: ["event", "result"],
      registers,
    }),
    smppBinds: new Gauge({
      name: "switchboard_smpp_binds",
      help: "SMPP clients bound to this process's SMPP server, by account id and mode (transmitter, receiver, transceiver)",
      labelNames: ["account_id", "mode"],
      registers,
    }),
    smppSubmits: new Counter({
      name: "switchboard_smpp_submits_total",
      help: "submit_sm, data_sm and submit_multi answered by the SMPP server, by account id and result (accepted, throttled, refused)",
      labelNames: ["account_id", "result"],
      registers,
    }),
    smppDeliveries: new Counter({
      name: "switchboard_smpp_deliveries_total",
      help: "deliver_sm sent by the SMPP server, by kind (receipt, mo) and the client's answer (ok, refused, unanswered)",
      labelNames: ["kind", "result"],
      registers,
    }),
    refusalsRecorded: new Counter({
      name: "switchboard_refusals_recorded_total",
      help: "Refused sends handed to the log of refusals, by family (v2, legacy, xml, email, voice, smpp)",
      labelNames: ["family"],
      registers,
    }),
    verifyRefusals: new Counter({
      name: "switchboard_verify_refusals_total",
      help: "Verification starts refused by a guard of the Verify API, by error code: verify_recipient_limited, verify_address_limited, verify_country_not_allowed, verify_prefix_blocked",
      labelNames: ["code"],
      registers,
    }),
    verifyPrefixesBlocked: new Counter({
      name: "switchboard_verify_prefixes_blocked_total",
      help: "Destination prefixes the Verify API's pumping guard blocked for an hour (conversion below VERIFY_PUMPING_MIN_CONVERSION)",
      registers,
    }),
    chainsStarted: new Counter({
      name: "switchboard_chains_started_total",
      help: "Fallback chains started (POST /api/v2/send; a retry answered from its Idempotency-Key is not counted again)",
      registers,
    }),
    chainsCompleted: new Counter({
      name: "switchboard_chains_completed_total",
      help: "Fallback chains completed, by outcome: delivered (a step's message reached the recipient) or undelivered",
      labelNames: ["outcome"],
      registers,
    }),
    refusalsDropped: new Counter({
      name: "switchboard_refusals_dropped_total",
      help: "Refused sends not written to the log of refusals: per_minute (over REFUSAL_LOG_PER_ACCOUNT_PER_MINUTE for the account or address), unauthenticated (over the minute's cap of all unauthenticated refusals), buffer_full, write_failed",
      labelNames: ["reason"],
      registers,
    }),
    alertActive: new Gauge({
      name: "switchboard_alert_active",
      help: "Alerts raised and not cleared, by alert (low_balance, connector_down, webhook_failing, delivery_rate) and subject (account:<id>, or the connector's name); as the database holds them, set by the process that evaluates alerts",
      labelNames: ["alert", "subject"],
      registers,
    }),
    alertsRaised: new Counter({
      name: "switchboard_alerts_raised_total",
      help: "Alerts raised by this process, by alert (each raised once, by one process, however many evaluate)",
      labelNames: ["alert"],
      registers,
    }),
  };
}

/** The text /metrics answers: this registry's metrics, added up with those of the other threads. */
export async function metricsText(metrics: Metrics): Promise<string> {
  if (metrics.peers.length === 0) return metrics.registry.metrics();
  const snapshots = await Promise.all([metrics.registry.getMetricsAsJSON(), ...metrics.peers.map((peer) => peer())]);
  return AggregatorRegistry.aggregate(snapshots as MetricsSnapshot[]).metrics();
}
