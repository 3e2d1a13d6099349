// The answers of the two-factor routes (two-factor-routes.ts) as schemas (typebox only: the
// console types its Two-factor page with them).
import { Type } from "typebox";
import { NullableString } from "../base/http/answer-schemas.js";

export const TwoFactorPolicy = Type.Object(
  {
    required: Type.Boolean({
      description: "The account's own setting: every console login must have a second factor.",
    }),
    in_force: Type.Boolean({
      description: "Whether a factor is required now, by the account's setting or the operator's.",
    }),
    required_by: NullableString({ description: "`account`, `operator_policy` (an operator account), or null." }),
  },
  { title: "TwoFactorPolicy" },
);

export const TwoFactorReset = Type.Object({ login: Type.String(), reset: Type.Boolean() }, { title: "TwoFactorReset" });

export const TwoFactorPolicyRequest = Type.Object(
  { required: Type.Boolean({ description: "Require a second factor of every console login of the account." }) },
  { additionalProperties: false, title: "TwoFactorPolicyRequest" },
);
