// The operator API's email answers (resource-routes.ts, domain-routes.ts) as schemas: the
// simulator's captured inbox, and an account's sending domains as the account sees them on v2.
// They serialize the answers and type what the console reads; typebox and schema files only.
import { Type } from "typebox";
import { Time } from "../../base/http/answer-schemas.js";
import { EmailDomain } from "./v2-schemas.js";

export const OperatorEmailDomain = EmailDomain;

const CAPTURED_FIELDS = {
  id: Type.Integer(),
  message_id: Type.String(),
  account_id: Type.Integer(),
  envelope_from: Type.String(),
  recipient: Type.String(),
  subject: Type.String(),
};

/** A captured message as listed: without its source. */
export const CapturedEmail = Type.Object({ ...CAPTURED_FIELDS, created_at: Time });

/** One captured message with its raw source (RFC 5322). */
export const CapturedEmailSource = Type.Object({ ...CAPTURED_FIELDS, raw: Type.String(), created_at: Time });
