// The v2 voice answers as schemas: they serialize the answers, show them in the OpenAPI document
// and type what the console reads. Imports only typebox and other schema files.
import { Type } from "typebox";
import { NullableString, OneOf, Time } from "../../base/http/answer-schemas.js";

export const CallerId = Type.Object(
  {
    id: Type.Integer(),
    number: Type.String(),
    status: OneOf(["pending", "approved", "rejected"]),
    rejection_reason: NullableString({
      description: "The operator's reason for rejecting it; null unless rejected with one.",
    }),
    created_at: Time,
  },
  { title: "VoiceCallerId" },
);

export const PlacedCall = Type.Object(
  {
    broadcast_id: Type.String(),
    message_id: Type.String(),
    to: Type.String(),
    credits: Type.Number(),
  },
  { title: "PlacedCall" },
);
