// The operator API's voice answers (admin-routes.ts) as schemas: an account's caller numbers with
// the account they belong to. They serialize the answers and type what the console reads; typebox
// and schema files only.
import { Type } from "typebox";
import { NullableString, OneOf, Time } from "../../base/http/answer-schemas.js";

export const OperatorCallerId = Type.Object({
  id: Type.Integer(),
  number: Type.String(),
  account: Type.String(),
  status: OneOf(["pending", "approved", "rejected"]),
  rejection_reason: NullableString({
    description: "The operator's reason for rejecting it; null unless rejected with one.",
  }),
  created_at: Time,
});

export const RemovedCallerId = Type.Object({ account: Type.String(), number: Type.String(), removed: Type.Boolean() });
