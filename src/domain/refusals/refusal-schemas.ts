// The answers of the refusal log's routes as schemas (GET /api/v2/refusals, GET /admin/api/refusals).
// Typebox and schema files only: the console types its reads with them.
import { Type } from "typebox";
import { NullableInteger, NullableString, Time } from "../../base/http/answer-schemas.js";
import { SubAccountVia } from "../accounts/v2-schemas.js";

export const Refusal = Type.Object(
  {
    id: Type.Integer(),
    at: Time,
    family: Type.String({ description: "v2, legacy, xml, email, voice or smpp." }),
    operation: Type.String({
      description: "What was called: `POST /api/v2/sms/send`, `GET /httpapi/send`, `submit_sm`.",
    }),
    recipients: Type.Array(Type.String(), {
      description: "The first 10 recipients asked for, as given; a left-out recipient's row names it alone.",
    }),
    recipient_count: Type.Integer({ description: "How many recipients the send named." }),
    sender: NullableString(),
    text: NullableString({ description: "The message text, cut at 160 characters." }),
    http_status: NullableInteger({ description: "The HTTP status answered; null over SMPP." }),
    code: Type.String({
      description: "The error code (the catalogue's; over SMPP the status name when the SMPP layer refused).",
    }),
    answer: Type.String({
      description: "The answer as the family wrote it: `422 dlt_template_mismatch`, `-32`, `0x00000407`.",
    }),
    reason: Type.String(),
    request_id: Type.String(),
    address: Type.String({ description: "The client's address." }),
    broadcast_id: NullableString({
      description:
        "A recipient left out of an accepted send (DND, opted out, invalid, given twice): the broadcast (a bulk job's batch_id) it was left out of; null when the whole send was refused.",
    }),
    job_id: NullableInteger({ description: "… and its bulk job, when the send was one." }),
  },
  { title: "Refusal" },
);

const CursorMeta = Type.Object({
  limit: Type.Integer({ minimum: 1 }),
  next_cursor: NullableString({ description: "Pass it as cursor for the next page; null on the last one." }),
});

export const RefusalPage = Type.Object({
  status: Type.Literal("success"),
  data: Type.Array(Refusal),
  meta: CursorMeta,
  subaccount_via: SubAccountVia,
});

export const OperatorRefusal = Type.Object(
  {
    account: NullableString({ description: "The account's username; null when the caller was not authenticated." }),
    username: NullableString({
      description:
        "The username a password login named (legacy, XML, email; SMPP: the bind's system_id), whether or not it signed in, on a refused send's row and on each number a send left out; null for a key or none.",
    }),
    ...Refusal.properties,
  },
  { title: "OperatorRefusal" },
);

export const OperatorRefusalPage = Type.Object({
  status: Type.Literal("success"),
  data: Type.Array(OperatorRefusal),
  meta: CursorMeta,
});
