// The v2 WhatsApp answers as schemas: they serialize the answers and show them in the OpenAPI
// document.
import { Type } from "typebox";
import { NullableString, NullableTime, Time } from "../../base/http/answer-schemas.js";

export const WhatsAppSent = Type.Object(
  {
    message_id: Type.String({ description: "WhatsApp's message id (wamid…)." }),
    id: Type.Integer({ description: "The gateway's id of the message, for GET /whatsapp/status/{id}." }),
    to: Type.String(),
  },
  { title: "WhatsAppSent" },
);

export const WhatsAppTemplate = Type.Object(
  {
    name: Type.String(),
    category: Type.String(),
    language: Type.String(),
    status: Type.String({ description: "approved, paused, disabled…, lower case." }),
    body: Type.String(),
    param_count: Type.Integer(),
    header_format: Type.String({ description: "none, text, image, video or document." }),
    header_param_count: Type.Integer(),
    is_sendable: Type.Boolean(),
    is_test_only: Type.Boolean(),
    send_disabled_reason: NullableString(),
  },
  { title: "WhatsAppTemplate" },
);

export const WhatsAppMessage = Type.Object(
  {
    id: Type.Integer(),
    message_id: NullableString({ description: "WhatsApp's message id, once it accepted the message." }),
    to: Type.String(),
    type: NullableString(),
    template: NullableString(),
    language: NullableString(),
    status: Type.String({ description: "sending, sent, delivered, read or failed." }),
    error: Type.Unsafe<{ code: number | null; message: string | null } | null>({
      type: ["object", "null"],
      properties: {
        code: Type.Union([Type.Integer(), Type.Null()], {
          description: "WhatsApp's error code, as in the webhook; null when WhatsApp gave none.",
        }),
        message: NullableString(),
      },
      required: ["code", "message"],
      description: "Why the message failed; null otherwise.",
    }),
    created_at: Time,
    sent_at: NullableTime(),
    delivered_at: NullableTime(),
    read_at: NullableTime(),
    failed_at: NullableTime(),
    credits: Type.Integer({ description: "1 once WhatsApp accepted the message, else 0." }),
  },
  { title: "WhatsAppMessage" },
);

export const WhatsAppAccount = Type.Object(
  {
    enabled: Type.Boolean(),
    connector: Type.String({ description: "simulator or whatsapp-cloud." }),
    connector_is_default: Type.Boolean(),
    business_account_connected: Type.Boolean(),
    phone_number_id: NullableString(),
    display_phone_number: NullableString(),
    waba_id: NullableString(),
    access_token_set: Type.Boolean(),
    sandbox: Type.Boolean(),
    test_numbers: Type.Array(Type.String()),
    templates_synced_at: NullableTime(),
  },
  { title: "WhatsAppAccount" },
);
