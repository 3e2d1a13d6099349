// POST /api/v2/send's request and the chain's answer as schemas (typebox only: the console types
// its reads with them). Each step's own fields are checked by its channel's schema (step-fields.ts).
import { Type } from "typebox";
import { NullableString, NullableTime, OneOf, Time } from "../../base/http/answer-schemas.js";

export const CHAIN_CHANNELS = ["whatsapp", "sms", "email", "voice"] as const;
export const CHAIN_CONDITIONS = ["failed", "not_delivered", "not_read"] as const;
/** A chain's steps: enough for every channel once and one more number. */
export const MAX_CHAIN_STEPS = 5;
/** The longest a step waits on the one before it: a week. */
export const MAX_WITHIN_SECONDS = 7 * 24 * 3600;

export const ChainAfter = Type.Object(
  {
    on: OneOf(CHAIN_CONDITIONS, {
      description:
        "failed: the previous step failed; not_delivered: it was not delivered within within_seconds; not_read: the previous WhatsApp message was not read within within_seconds.",
    }),
    within_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_WITHIN_SECONDS,
        description:
          "How long the previous step is watched: 300 for not_delivered and not_read; for failed, until it is final unless given.",
      }),
    ),
  },
  { additionalProperties: false, title: "ChainCondition" },
);

export const ChainStepRequest = Type.Object(
  {
    channel: OneOf(CHAIN_CHANNELS),
    to: Type.Optional(
      Type.String({ minLength: 1, maxLength: 320, description: "This step's recipient instead of the chain's." }),
    ),
    after: Type.Optional(ChainAfter),
  },
  {
    additionalProperties: true,
    title: "ChainStepRequest",
    description:
      "The channel's own v2 send fields beside channel, to and after: SMS sender_id, message, route, dlt_*; WhatsApp template, params, language, message, media_*; email from, subject, html, text, template_id, …; voice from, text.",
  },
);

export const ChainSendRequest = Type.Object(
  {
    recipient: Type.String({ minLength: 1, maxLength: 320 }),
    steps: Type.Array(ChainStepRequest, { minItems: 1, maxItems: MAX_CHAIN_STEPS }),
  },
  { additionalProperties: false, title: "ChainSendRequest" },
);

export const ChainStep = Type.Object(
  {
    channel: OneOf(CHAIN_CHANNELS),
    to: Type.String(),
    message_id: NullableString({ description: "The step's message once sent (GET /api/v2/messages/{id})." }),
    status: Type.String({
      description:
        "The message's status once sent; before: pending (an earlier step is undecided), waiting (its condition is watched), sending; or refused (its channel refused it: error), skipped (its condition was not met).",
    }),
    after: Type.Union([ChainAfter, Type.Null()]),
    decides_at: NullableTime(),
    error: Type.Union([
      Type.Object(
        {
          code: Type.String(),
          message: Type.String(),
          reason: Type.Optional(Type.String()),
          carrier_code: Type.Optional(Type.String()),
        },
        {
          description:
            "Why the step was refused, or why its message failed, as the message's status answer says it (its reason and carrier's code when the carrier's code maps to one).",
        },
      ),
      Type.Null(),
    ]),
  },
  { title: "ChainStep" },
);

export const Chain = Type.Object(
  {
    chain_id: Type.String(),
    recipient: Type.String(),
    status: OneOf(["running", "completed"] as const),
    outcome: Type.Union([OneOf(["delivered", "undelivered"] as const), Type.Null()]),
    created_at: Time,
    completed_at: NullableTime(),
    steps: Type.Array(ChainStep),
  },
  { title: "SendChain" },
);
