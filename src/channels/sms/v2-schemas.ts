// The v2 SMS calls' answers as schemas: they serialize the answers, show them in the OpenAPI
// document and type what the console reads. Imports only typebox and other schema files.
import { type TObject, Type } from "typebox";
import {
  Credits,
  NullableInteger,
  NullableNumber,
  NullableString,
  NullableTime,
  Time,
  Wallets,
} from "../../base/http/answer-schemas.js";
import { SubAccountVia } from "../../domain/accounts/v2-schemas.js";
import { TRAFFIC_CHANNELS, type TrafficChannel } from "../../domain/messages/traffic-channels.js";
import { WebhookDelivery } from "../../domain/webhooks/schemas.js";

export const SmsAccepted = Type.Object(
  {
    message_id: Type.String({ description: "q and a 26-character ULID: the id to ask the status with." }),
    queue_id: Type.String({ description: "The same as message_id." }),
    broadcast_id: Type.String({ description: "<account_id>_<yyyymmdd>_<sequence>; the ledger entry's ref." }),
    status: Type.String({ description: "queued: the status on acceptance, also of a scheduled send." }),
    estimated_delivery: Time,
    credits: Credits,
    scheduled_at: Type.Optional(Time),
  },
  { title: "SmsAccepted" },
);

export const ScheduleCancellation = Type.Object(
  {
    cancelled: Type.Integer(),
    refunded_credits: Credits,
    message_ids: Type.Array(Type.String(), { description: "The first 1,000 cancelled messages." }),
  },
  { title: "ScheduleCancellation" },
);

const CallReport = Type.Object(
  {
    status: NullableString({ description: "queued, ringing, in-progress, completed, busy, no-answer, failed…" }),
    duration_seconds: NullableNumber(),
    units: NullableNumber(),
    estimated_speech_seconds: NullableNumber(),
  },
  { title: "CallReport" },
);

export const DeliveryReport = Type.Object(
  {
    message_id: Type.String(),
    broadcast_id: Type.String(),
    mobile: Type.String({ description: "The recipient: 10 digits, an E.164 number (voice) or an address (email)." }),
    status: Type.String({ description: "scheduled, queued, submitted, delivered, failed or cancelled." }),
    delivery_time: NullableTime(),
    sent_time: NullableTime(),
    sender_id: Type.String(),
    credit: Credits,
    route: Type.String(),
    segments: Type.Integer(),
    encoding: NullableString(),
    vendor_message_id: NullableString({ description: "The carrier's id of the message." }),
    created_at: Time,
    channel: Type.String({ description: "sms, voice, email or whatsapp." }),
    message: Type.String({ description: "The text sent (an email's subject)." }),
    scheduled_at: Type.Optional(Time),
    call: Type.Optional(CallReport),
    error: Type.Optional(
      Type.Object(
        {
          code: Type.String({
            description: "Stable: match on it (UNDELIV, rejected, no_route, expired, busy, bounced…).",
          }),
          message: Type.String({ description: "Why, in words; may change." }),
          reason: Type.Optional(
            Type.String({
              description:
                "Stable, when the carrier's own code maps to one (its connector's error_codes): a code of the error catalogue, e.g. dlt_template_mismatch.",
            }),
          ),
          carrier_code: Type.Optional(
            Type.String({ description: "The carrier's own failure code that was mapped (e.g. 633), beside reason." }),
          ),
        },
        { title: "MessageFailure", description: "Why a message failed (docs/api.md, Why a message failed)." },
      ),
    ),
    held: Type.Optional(
      Type.Object(
        {
          code: Type.String({ description: "Stable: account_inactive or connectors_down." }),
          message: Type.String({ description: "Why it waits, in words; may change." }),
          since: Time,
        },
        {
          title: "MessageHold",
          description:
            "Only while a queued message is held, not sent: its account (or one above it) is not active, or no connector of its route is up (docs/api.md, Statuses).",
        },
      ),
    ),
    clicks: Type.Optional(
      Type.Integer({
        description: "Clicks of the message's tracked short links (shorten_urls); absent when it has none.",
      }),
    ),
  },
  { title: "DeliveryReport" },
);

/** A page of GET /api/v2/messages: rows as the status call answers them, and where to go on. */
export const MessagePage = Type.Object({
  status: Type.Literal("success"),
  data: Type.Array(DeliveryReport),
  meta: Type.Object(
    {
      limit: Type.Integer({ minimum: 1 }),
      next_cursor: NullableString({ description: "Pass it as cursor for the next page; null on the last one." }),
    },
    { title: "CursorMeta" },
  ),
  subaccount_via: SubAccountVia,
});

/** A send's or bulk job's tracked short links (shorten_urls) and how many of their messages were clicked. */
export const ClickThrough = Type.Object(
  {
    messages_with_links: Type.Integer(),
    messages_clicked: Type.Integer({ description: "Messages whose short links were followed at least once." }),
    clicks: Type.Integer(),
    click_through_rate: Type.Number({
      description: "messages_clicked / messages_with_links (0 to 1; 0 without links).",
    }),
  },
  { title: "ClickThrough" },
);

export const BroadcastReport = Type.Object(
  {
    broadcast_id: Type.String(),
    total: Type.Integer(),
    messages: Type.Array(DeliveryReport),
    clicks: Type.Optional(ClickThrough),
  },
  { title: "BroadcastReport" },
);

export const Balance = Type.Object(
  {
    balance: Type.Number({ description: "The SMS wallet, in credits." }),
    currency: Type.Literal("credits"),
    last_updated: Time,
    wallets: Wallets,
  },
  { title: "Balance" },
);

export const SenderId = Type.Object(
  {
    sender_id: Type.String(),
    status: Type.String({ description: "pending, approved or rejected." }),
    created_at: Time,
  },
  { title: "SenderId" },
);

const BulkRejection = Type.Object(
  {
    recipient: Type.String(),
    error: Type.Object({ code: Type.String(), message: Type.String(), legacy_code: Type.Optional(Type.Integer()) }),
  },
  { title: "BulkRejection" },
);

export const BulkAccepted = Type.Object(
  {
    job_id: Type.Integer(),
    batch_id: Type.String(),
    total: Type.Integer({ description: "Recipients in this call." }),
    accepted: Type.Integer(),
    rejected: Type.Array(BulkRejection, { description: "The first 1,000 refused recipients." }),
    rejected_count: Type.Integer(),
    status: Type.String(),
    credits: Credits,
    scheduled_at: Type.Optional(Time),
  },
  { title: "BulkAccepted" },
);

export const BulkPreview = Type.Object(
  {
    total: Type.Integer({ description: "Recipients given (or in the group)." }),
    accepted: Type.Integer({ description: "Recipients that would be sent to." }),
    rejected: Type.Array(BulkRejection, { description: "The first 1,000 that would be refused." }),
    rejected_count: Type.Integer(),
    segments_per_message: Type.Integer(),
    segments: Type.Integer({ description: "Segments of every message that would be sent." }),
    credits: Credits,
    wallet: Type.String({ description: "The wallet that would be charged." }),
    balance: Credits,
  },
  { title: "BulkPreview" },
);

export const BulkJob = Type.Object(
  {
    id: Type.Integer(),
    batch_id: Type.String(),
    status: Type.String({ description: "queued, processing or completed." }),
    route: Type.String(),
    sender_id: Type.String(),
    group_id: NullableInteger(),
    total: Type.Integer(),
    rejected: Type.Integer(),
    rejected_url: Type.String({
      description:
        "The rejected numbers with their reasons: the log of refusals of this job (`/api/v2/refusals?job_id=…`), a row per number.",
    }),
    credits: Credits,
    scheduled_at: NullableTime(),
    created_at: Time,
    started_at: NullableTime(),
    completed_at: NullableTime(),
  },
  { title: "BulkJob" },
);

export const DeliverySummary = Type.Object(
  {
    total: Type.Integer(),
    delivered: Type.Integer(),
    failed: Type.Integer(),
    cancelled: Type.Integer(),
    pending: Type.Integer(),
  },
  { title: "DeliverySummary" },
);

const PendingStages = Type.Object(
  { not_queued: Type.Integer(), scheduled: Type.Integer(), queued: Type.Integer(), submitted: Type.Integer() },
  { title: "BulkJobPendingStages" },
);

/** A job in the list: its fields and its delivery summary side by side. */
export const BulkJobWithSummary = Type.Object(
  { ...BulkJob.properties, delivery_summary: DeliverySummary },
  { title: "BulkJobWithSummary" },
);

export const BulkJobDetail = Type.Object(
  { job: BulkJob, delivery_summary: DeliverySummary, pending_stages: PendingStages, clicks: ClickThrough },
  { title: "BulkJobDetail" },
);

export const BulkJobCancellation = Type.Object(
  {
    job: BulkJob,
    delivery_summary: DeliverySummary,
    cancelled: Type.Integer(),
    credits_refunded: Type.Number(),
  },
  { title: "BulkJobCancellation" },
);

// ---- The console's views of the account's messages (message-views.ts) -----------------------

const Counts = Type.Object({
  sent: Type.Integer({ description: "Messages accepted, whatever their status now." }),
  delivered: Type.Integer({ description: "Delivered (WhatsApp: delivered or read)." }),
  failed: Type.Integer(),
});

export const MessageSummary = Type.Object(
  {
    time_zone: Type.String({ description: "The account's time zone: its days." }),
    today_from: Time,
    week_from: Time,
    channels: Type.Object(
      Object.fromEntries(
        TRAFFIC_CHANNELS.map((channel) => [channel, Type.Object({ today: Counts, last_7_days: Counts })]),
      ) as Record<TrafficChannel, TObject<{ today: typeof Counts; last_7_days: typeof Counts }>>,
    ),
  },
  { title: "MessageSummary" },
);

export const PerMinute = Type.Object(
  {
    from: Time,
    to: Time,
    minutes: Type.Array(
      Type.Object({
        at: Time,
        sent: Type.Integer(),
        delivered: Type.Integer(),
        failed: Type.Integer(),
      }),
    ),
  },
  { title: "MessagesPerMinute" },
);

export const MessageDetail = Type.Object(
  {
    message: DeliveryReport,
    cost: Type.Object({
      credits: Credits,
      wallet: Type.String(),
      refunded: Type.Boolean({
        description:
          "The credits went back to the wallet (failed before a carrier, cancelled, or failed by its carrier for a reason the operator refunds).",
      }),
    }),
    carrier: Type.Object({ connector: NullableString(), vendor_message_id: NullableString() }),
    parts: Type.Array(
      Type.Object({
        part: Type.Integer({ minimum: 1 }),
        status: Type.String({ description: "pending, delivered or failed: the part's receipt." }),
        vendor_message_id: Type.String(),
        error_code: NullableString(),
        done_at: NullableTime(),
      }),
    ),
    timeline: Type.Array(
      Type.Object({
        at: Time,
        event: Type.String({
          description:
            "accepted, chain step, scheduled, submitted, part N of M delivered|failed, delivered, read, failed, cancelled, refunded, webhook",
        }),
        detail: NullableString(),
      }),
    ),
    webhooks: Type.Array(WebhookDelivery),
    chain: Type.Union(
      [
        Type.Object({
          chain_id: Type.String({ description: "The fallback send it is a step of (GET /api/v2/send/{chain_id})." }),
          step: Type.Integer({ minimum: 1 }),
          steps: Type.Integer({ minimum: 1 }),
        }),
        Type.Null(),
      ],
      { description: "The fallback chain the message is a step of, or null." },
    ),
    subaccount: Type.Optional(
      Type.String({
        description:
          "A reseller reading a message of an account below it (any depth): that sub-account's username; absent for the reader's own.",
      }),
    ),
    subaccount_via: SubAccountVia,
  },
  { title: "MessageDetail" },
);
