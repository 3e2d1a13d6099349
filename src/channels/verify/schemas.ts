// The Verify API's requests and answers as schemas (typebox only: the console may type its reads
// with them).
import { Type } from "typebox";
import { NullableString, NullableTime, OneOf, Time } from "../../base/http/answer-schemas.js";

export const Channel = OneOf(["sms", "whatsapp", "voice", "email"] as const, {
  description: "The channel the code goes by.",
});

export const VerifyStartRequest = Type.Object(
  {
    recipient: Type.String({ minLength: 1, maxLength: 320 }),
    channel: Type.Optional(Channel),
    code_length: Type.Optional(Type.Integer({ minimum: 4, maximum: 10, description: "Digits of the code (6)." })),
    expiry_seconds: Type.Optional(
      Type.Integer({ minimum: 30, maximum: 86_400, description: "How long the code can be checked (600)." }),
    ),
    locale: Type.Optional(Type.String({ minLength: 2, maxLength: 20 })),
    client_ip: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 45,
        description:
          "The end user's IP address (IPv4, or IPv6 counted by its /64), for the per-address limit (VERIFY_STARTS_PER_ADDRESS_PER_HOUR).",
      }),
    ),
  },
  { additionalProperties: false, title: "VerifyStartRequest" },
);

export const VerifyCheckRequest = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 10, pattern: "^[0-9]+$" }) },
  { additionalProperties: false, title: "VerifyCheckRequest" },
);

export const VerifyResendRequest = Type.Object(
  { channel: Type.Optional(Channel) },
  { additionalProperties: false, title: "VerifyResendRequest" },
);

const Status = OneOf(["pending", "approved", "denied", "expired", "cancelled"] as const);

export const VerificationStarted = Type.Object(
  {
    verification_id: Type.String(),
    status: Status,
    channel: Channel,
    expires_at: Time,
  },
  { title: "VerificationStarted" },
);

export const Verification = Type.Object(
  {
    verification_id: Type.String(),
    status: Status,
    recipient: Type.String(),
    channel: Channel,
    channels: Type.Array(Channel, { description: "Every channel a code went by, in order." }),
    code_length: Type.Integer(),
    locale: NullableString(),
    attempts: Type.Integer({ description: "Wrong codes checked so far." }),
    message_id: NullableString({ description: "The message that carries the latest code (its text masked)." }),
    created_at: Time,
    expires_at: Time,
    last_sent_at: Time,
    done_at: NullableTime(),
  },
  { title: "Verification" },
);

export const VerificationCheck = Type.Object(
  {
    status: OneOf(["approved", "pending", "denied", "expired"] as const),
    attempts_left: Type.Integer({ minimum: 0 }),
  },
  { title: "VerificationCheck" },
);

export const VerificationPage = Type.Object({
  status: Type.Literal("success"),
  data: Type.Array(Verification),
  meta: Type.Object({
    limit: Type.Integer({ minimum: 1 }),
    next_cursor: NullableString({ description: "Pass it as cursor for the next page; null on the last one." }),
  }),
});

const ConversionFields = {
  started: Type.Integer({ minimum: 0, description: "Verifications started in the window." }),
  approved: Type.Integer({ minimum: 0, description: "Of them, approved." }),
  conversion_rate: Type.Number({ minimum: 0, maximum: 1, description: "approved / started (0 when none)." }),
  avg_seconds_to_approve: Type.Union([Type.Number(), Type.Null()], {
    description: "Mean seconds from start to approval; null when none was approved.",
  }),
};

export const VerifyAnalytics = Type.Object(
  {
    from: NullableTime(),
    to: NullableTime(),
    total: Type.Object(ConversionFields),
    by_channel_country: Type.Array(
      Type.Object({
        channel: Channel,
        country: NullableString({ description: "ISO 3166 country of the recipient; null for email addresses." }),
        ...ConversionFields,
      }),
      { description: "Per channel of the last send and recipient country." },
    ),
  },
  { title: "VerifyAnalytics" },
);

export const VerifySettingsAnswer = Type.Object(
  {
    verify_template_id: NullableString({ description: "The approved DLT template of SMS codes (one {#var#})." }),
    verify_sender_id: NullableString({ description: "The sender ID (header) of SMS codes." }),
    verify_whatsapp_template: NullableString(),
    verify_caller_id: NullableString({ description: "The approved caller number of voice codes." }),
    verify_email_from: NullableString(),
    verify_channels: Type.Array(Channel, { description: "The order resends escalate in." }),
    verify_countries: Type.Array(Type.String(), { description: "The countries codes may go to (ISO 3166)." }),
  },
  { title: "VerifySettings" },
);

const Setting = Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()]));
export const VerifySettingsRequest = Type.Object(
  {
    verify_template_id: Setting,
    verify_sender_id: Setting,
    verify_whatsapp_template: Setting,
    verify_caller_id: Setting,
    verify_email_from: Setting,
    verify_channels: Type.Optional(
      Type.Union([Type.Array(Type.String({ maxLength: 20 }), { maxItems: 4 }), Type.Null()]),
    ),
    verify_countries: Type.Optional(
      Type.Union([Type.Array(Type.String({ maxLength: 2 }), { maxItems: 250 }), Type.Null()]),
    ),
  },
  { additionalProperties: false, title: "VerifySettingsRequest" },
);

export const VerifyPrefix = Type.Object(
  {
    prefix: Type.String({ description: "The first 6 digits of the recipients' numbers, with the country code." }),
    state: OneOf(["blocked", "allowed", "unblocked"] as const),
    blocked_at: NullableTime(),
    blocked_until: NullableTime(),
    samples: Type.Union([Type.Integer(), Type.Null()], { description: "Verifications in the hour that blocked it." }),
    conversion: Type.Union([Type.Number(), Type.Null()], { description: "Their conversion." }),
    allowed_at: NullableTime(),
  },
  { title: "VerifyPrefix" },
);

export const VerifyPrefixChange = Type.Object(
  {
    allowed: Type.Boolean({
      description: "true: the guard never blocks the prefix (a block ends); false: it does again.",
    }),
  },
  { additionalProperties: false, title: "VerifyPrefixChange" },
);
