// The operator API's inbound answers (admin-routes.ts) as schemas: virtual numbers, keywords with
// their account, suppression lists and an injected message's outcome. They serialize the answers
// and type what the console reads; typebox and schema files only.
import { Type } from "typebox";
import { NullableInteger, NullableString, OneOf, Time } from "../../base/http/answer-schemas.js";
import { Keyword } from "./v2-schemas.js";

export const InboundNumber = Type.Object({
  id: Type.Integer(),
  number: Type.String(),
  created_at: Time,
  account: Type.String(),
});

export const RemovedInboundNumber = Type.Object({
  account: Type.String(),
  number: Type.String(),
  removed: Type.Boolean(),
});

/** A keyword as decided: the account's own view (v2). */
export const OperatorKeyword = Keyword;
export const AccountKeyword = Type.Object({ ...Keyword.properties, account: Type.String() });

export const Suppression = Type.Object({ number: Type.String(), reason: Type.String(), created_at: Time });
export const SuppressionsAdded = Type.Object({
  account: Type.String(),
  added: Type.Integer(),
  duplicates: Type.Integer(),
});
export const SuppressionsRemoved = Type.Object({ account: Type.String(), removed: Type.Integer() });

/** POST /inbound: the message stored (or found again: `duplicate`) and what was done with it. */
export const InjectedInbound = Type.Object({
  id: Type.Integer(),
  account: NullableString(),
  from: Type.String(),
  to: Type.String(),
  message: Type.String(),
  received_at: Time,
  duplicate: Type.Boolean(),
  keyword_id: NullableInteger(),
  keyword: NullableString(),
  reply_message_id: NullableString(),
  /** An opt-out or opt-in word's effect on the suppression list; null for other messages. */
  opt_out: Type.Unsafe<"added" | "already" | "removed" | "not_listed" | null>({
    type: ["string", "null"],
    enum: ["added", "already", "removed", "not_listed", null],
  }),
  /** The keyword's reply: none, sent (its message id) or skipped (why); null for a duplicate. */
  reply: Type.Unsafe<{
    status: "none" | "sent" | "skipped";
    message_id?: string;
    reason?: string;
    message?: string;
  } | null>({
    type: ["object", "null"],
    properties: {
      status: OneOf(["none", "sent", "skipped"]),
      message_id: Type.String(),
      reason: Type.String(),
      message: Type.String(),
    },
    required: ["status"],
  }),
});
