// The request fields the v2 SMS calls share: one send's fields, and the single send body.
// The bulk, schedule and GET variants take these and change what differs.
import { Type } from "typebox";
import { requiredInDocument } from "../../base/http/answer-schemas.js";
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
  shorten_urls: Type.Optional(
    Type.Boolean({
      description:
        "Replace each link inside a template's {#var#} value by a tracked short link (SHORT_LINK_BASE/<code>), each recipient its own; absent: the account's default.",
    }),
  ),
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
  shorten_urls?: boolean;
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
