// The request fields the v2 SMS calls share: one send's fields, and the single send body.
// The bulk, schedule and GET variants take these and change what differs. Then the answers'
// shapes, which serialize them and show them in the OpenAPI document.
import { Type } from "@fastify/type-provider-typebox";
import { requiredInDocument } from "../../base/http/openapi.js";
import {
  Credits,
  NullableInteger,
  NullableNumber,
  NullableString,
  NullableTime,
  Time,
  Wallets,
} from "../../base/http/v2-answers.js";
import { SENDER_ID_MAX_LENGTH } from "./policy.js";

/** Every field of a v2 send but the recipient. */
export const SEND_FIELDS = {
  sender_id: Type.Optional(Type.String({ maxLength: SENDER_ID_MAX_LENGTH })),
  message: Type.Optional(Type.String({ maxLength: 10_000 })),
  route: Type.Optional(Type.String({ maxLength: 20 })),
  dlt_entity_id: Type.Optional(Type.String({ maxLength: 30 })),
  dlt_template_id: Type.Optional(Type.String({ maxLength: 30 })),
  schedule_at: Type.Optional(Type.String({ maxLength: 30 })),
  unicode: Type.Optional(Type.Boolean()),
  flash: Type.Optional(Type.Boolean()),
};

/** The send fields as the handlers read them (the schema has validated them). */
export interface SendFields {
  sender_id?: string;
  message?: string;
  route?: string;
  dlt_entity_id?: string;
  dlt_template_id?: string;
  schedule_at?: string;
  unicode?: boolean;
  flash?: boolean;
}

/** What the SMS rules refuse a send without (each with a code of its own, so optional to the schema). */
export const REQUIRED_SEND_FIELDS = ["sender_id", "message"];

export const SendBody = requiredInDocument(
  Type.Object(
    { ...SEND_FIELDS, recipient: Type.Optional(Type.String({ maxLength: 20 })) },
    { additionalProperties: false, title: "SmsSendRequest" },
  ),
  [...REQUIRED_SEND_FIELDS, "recipient"],
);
export type SendBody = SendFields & { recipient?: string };

// ---- Answers ------------------------------------------------------------------------------

export const SmsAccepted = Type.Object(
  {
    message_id: Type.String({ description: "q and a 26-character ULID: the id to ask the status with." }),
    queue_id: Type.String({ description: "The same as message_id." }),
    broadcast_id: Type.String({ description: "<account_id>_<yyyymmdd>_<sequence>; the ledger entry's ref." }),
    status: Type.String({ description: "queued (send), scheduled (schedule)." }),
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
        },
        { title: "MessageFailure", description: "Why a message failed (docs/api.md, Why a message failed)." },
      ),
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
});

export const BroadcastReport = Type.Object(
  { broadcast_id: Type.String(), total: Type.Integer(), messages: Type.Array(DeliveryReport) },
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
