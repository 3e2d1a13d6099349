// The v2 email answers as schemas: they serialize the answers and show them in the OpenAPI
// document.
import { Type } from "typebox";
import { NullableString, NullableTime, Time } from "../../base/http/answer-schemas.js";

export const EmailDomain = Type.Object(
  {
    domain: Type.String(),
    status: Type.String({ description: "pending, approved or rejected." }),
    rejection_reason: NullableString({
      description: "The operator's reason for rejecting it; null unless rejected with one.",
    }),
    dkim: Type.Object(
      {
        selector: Type.String(),
        record_name: Type.String(),
        record_type: Type.Literal("TXT"),
        record_value: Type.String(),
      },
      { title: "DkimRecord", description: "The DNS record to publish so that receivers can check the signatures." },
    ),
    created_at: Time,
    updated_at: Time,
  },
  { title: "EmailDomain" },
);

export const EmailDomainDeletion = Type.Object(
  { domain: Type.String(), deleted: Type.Literal(true) },
  { title: "EmailDomainDeletion" },
);

export const EmailTemplate = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    subject: Type.String(),
    html: Type.String(),
    text: NullableString(),
    placeholders: Type.Array(Type.String(), { description: "The placeholder names used, in order of first use." }),
    created_at: Time,
    updated_at: Time,
  },
  { title: "EmailTemplate" },
);

export const EmailTemplateDeletion = Type.Object(
  { id: Type.Integer(), deleted: Type.Literal(true) },
  { title: "EmailTemplateDeletion" },
);

const EmailRecipientStatus = Type.Object(
  {
    message_id: Type.String(),
    email: Type.String(),
    kind: Type.String({ description: "to, cc or bcc." }),
    status: Type.String({ description: "scheduled, queued, sent, delivered, bounced or cancelled." }),
    reason: NullableString({ description: "The bounce reason." }),
    scheduled_for: NullableTime(),
    sent_at: NullableTime(),
    opens: Type.Integer(),
    clicks: Type.Array(Type.Object({ url: NullableString(), at: Time })),
  },
  { title: "EmailRecipientStatus" },
);

export const EmailSendStatus = Type.Object(
  { broadcast_id: Type.String(), recipients: Type.Array(EmailRecipientStatus) },
  { title: "EmailSendStatus" },
);

export const EmailSendAnswer = Type.Object({ broadcast_id: Type.String() }, { title: "EmailSendAnswer" });
