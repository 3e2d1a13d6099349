// The v2 keyword and inbound-message answers as schemas: they serialize the answers and show them
// in the OpenAPI document.
import { Type } from "typebox";
import { NullableInteger, NullableString, Time } from "../../base/http/answer-schemas.js";

const KEYWORD_FIELDS = {
  id: Type.Integer(),
  key: Type.String(),
  response_type: Type.String({ description: "static (answer static_message) or none." }),
  static_message: NullableString(),
  status: Type.String({ description: "pending, approved or rejected." }),
  rejection_reason: NullableString({
    description: "The operator's reason for rejecting it; null unless rejected with one.",
  }),
  created_at: Time,
  updated_at: Time,
};

export const Keyword = Type.Object(KEYWORD_FIELDS, { title: "Keyword" });

export const KeywordRequest = Type.Object(
  {
    key: Type.String({ maxLength: 100 }),
    response_type: Type.String({ maxLength: 30 }),
    static_message: Type.Optional(Type.Union([Type.String({ maxLength: 2_000 }), Type.Null()])),
  },
  { additionalProperties: false, title: "KeywordRequest" },
);

export const InboundMessage = Type.Object(
  {
    id: Type.Integer(),
    from: Type.String(),
    to: Type.String({ description: "The account's inbound number that received it." }),
    message: Type.String(),
    received_at: Time,
    keyword_id: NullableInteger(),
    keyword: NullableString(),
    reply_message_id: NullableString({ description: "The queue id of the keyword reply; null when none was sent." }),
  },
  { title: "InboundMessage" },
);

export const KeywordWithMessages = Type.Object(
  {
    ...KEYWORD_FIELDS,
    received_total: Type.Integer(),
    received: Type.Array(InboundMessage, { description: "This page of the messages it matched, newest first." }),
  },
  { title: "KeywordWithMessages" },
);
