// The webhook answers as schemas (v2 and operator API alike): they serialize the answers and show
// them in the OpenAPI document.
import { Type } from "typebox";
import { NullableInteger, NullableString, NullableTime, OpenObject, Time } from "../../base/http/answer-schemas.js";

const Url = Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()]);

export const WebhookUrlsRequest = Type.Object(
  {
    delivery_report: Type.Optional(Url),
    inbound_sms: Type.Optional(Url),
    inbound_whatsapp: Type.Optional(Url),
    low_balance: Type.Optional(Url),
    verification_approved: Type.Optional(Url),
    verification_denied: Type.Optional(Url),
    verification_expired: Type.Optional(Url),
    chain_completed: Type.Optional(Url),
    link_clicked: Type.Optional(Url),
  },
  { additionalProperties: false, title: "WebhookUrlsRequest" },
);

export const WebhookSettings = Type.Object(
  {
    delivery_report: NullableString(),
    inbound_sms: NullableString(),
    inbound_whatsapp: NullableString(),
    low_balance: NullableString({
      description: "Where low_balance events go (opt-in): the wallet fell below its alert threshold.",
    }),
    verification_approved: NullableString({
      description: "Where verification_approved events go (opt-in): a verification's code was checked right.",
    }),
    verification_denied: NullableString({
      description:
        "Where verification_denied events go (opt-in): VERIFY_MAX_ATTEMPTS wrong codes ended a verification.",
    }),
    verification_expired: NullableString({
      description: "Where verification_expired events go (opt-in): a verification ended unchecked at its expiry.",
    }),
    chain_completed: NullableString({
      description:
        "Where chain_completed events go (opt-in): a fallback send (POST /api/v2/send) ended, after its steps' own events.",
    }),
    link_clicked: NullableString({
      description: "Where link_clicked events go (opt-in): a recipient followed a tracked short link of a message.",
    }),
    secret: NullableString({ description: "The current signing secret (whsec_…)." }),
  },
  { title: "WebhookSettings" },
);

export const WebhookSecret = Type.Object(
  {
    secret: Type.String(),
    previous_valid_until: NullableTime(),
  },
  { title: "WebhookSecret" },
);

const WebhookAttempt = Type.Object(
  {
    attempt: Type.Integer(),
    url: Type.String({ description: "Where this attempt posted: a delivery follows the account's current URL." }),
    status_code: NullableInteger(),
    latency_ms: Type.Integer(),
    error: NullableString(),
    at: Time,
  },
  { title: "WebhookAttempt" },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.Integer(),
    webhook_id: Type.String({ description: "The webhook-id header: the same on every attempt." }),
    event: Type.String({
      description:
        "delivery_report, inbound_sms, inbound_whatsapp, low_balance, verification_approved, verification_denied, verification_expired, chain_completed, link_clicked, email or alert.",
    }),
    url: Type.String(),
    status: Type.String({ description: "pending, delivering, delivered or failed." }),
    attempts: Type.Integer(),
    next_attempt_at: NullableTime(),
    created_at: Time,
    done_at: NullableTime(),
    last_status: NullableInteger(),
    last_error: NullableString(),
    redelivery_of: NullableInteger(),
    // The event's own body, whose shape depends on the event.
    payload: OpenObject({ description: "The body sent, as sent." }),
    attempts_log: Type.Array(WebhookAttempt),
  },
  { title: "WebhookDelivery" },
);

export const Redelivery = Type.Object(
  {
    count: Type.Integer(),
    more: Type.Boolean({ description: "More deliveries matched than one call re-queues (10,000)." }),
    next_from: NullableString({ description: "Call again with this `from` to re-queue the rest." }),
  },
  { title: "Redelivery" },
);
