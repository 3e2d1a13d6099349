// The answers of the audit log's routes as schemas (GET /api/v2/audit, GET /admin/api/audit).
// Typebox and schema files only: the console types its pages with them.
import { Type } from "typebox";
import { NullableString, OneOf, Time } from "../../base/http/answer-schemas.js";

/** A thing as it was before or after a change: any JSON value, null when there was none. */
const State = Type.Unknown({
  description: "The thing as JSON; null when it did not exist (before a creation, after a removal).",
});

export const AuditEntry = Type.Object(
  {
    seq: Type.Integer({ description: "The entry's place in the chain, from 1 without gaps." }),
    at: Time,
    actor: Type.String({ description: "The account whose credentials made the change; `cli` for the CLI." }),
    actor_user: NullableString({
      description:
        "The login that acted: a session's, or the maker of the API key that acted (null for a key that records none). In v2, null on another customer's entries: only the account's own, its parents' and the operator's logins are named.",
    }),
    channel: OneOf(["console", "api", "operator_api", "cli"] as const, {
      description: "console (a signed-in session), api (an account's API key), operator_api (an operator key), cli.",
    }),
    credential: NullableString({
      description:
        "`session:<id>` or `key:<id>`; for the CLI `<os user>@<host>`. Null on another account's entries in v2.",
    }),
    address: NullableString({
      description: "The client's address; null for the CLI and on another account's entries in v2.",
    }),
    account: NullableString({
      description: "The account the change concerns; null for the gateway's own (a carrier, a price card).",
    }),
    action: Type.String({ description: "`<thing>.<verb>`, e.g. `credits.topup`, `template.approve`." }),
    target: Type.String({ description: "What it was done to, in words." }),
    before: State,
    after: State,
    hash: Type.String({ description: "SHA-256 of the entry, the previous entry's hash among its fields (hex)." }),
  },
  { title: "AuditEntry" },
);

export const AuditPage = Type.Object({
  status: Type.Literal("success"),
  data: Type.Array(AuditEntry),
  meta: Type.Object({
    limit: Type.Integer({ minimum: 1 }),
    next_cursor: NullableString({ description: "Pass it as cursor for the next page; null on the last one." }),
  }),
});

/** GET /admin/api/audit/verify: entries checked, the head, and the first bad entry (null: intact). */
export const AuditVerification = Type.Object(
  {
    entries: Type.Integer(),
    head: Type.Object({ seq: Type.Integer(), hash: Type.String() }),
    broken: Type.Union([Type.Object({ seq: Type.Integer(), reason: Type.String() }), Type.Null()]),
  },
  { title: "AuditVerification" },
);

/** The CSV columns of an export (JSON Lines writes each entry whole). */
export const AUDIT_EXPORT_COLUMNS = Object.keys(AuditEntry.properties) as (keyof typeof AuditEntry.properties)[];
