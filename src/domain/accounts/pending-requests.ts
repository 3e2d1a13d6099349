// The parts of the operator's approval queue (admin/approvals.ts): each folder that owns a kind
// of request (accounts/: sender IDs, templates, DLT entities and headers; inbound/: keywords;
// email/: domains; voice/: caller numbers) selects its pending rows in the one shape below, and
// admin/ unions the parts, pages and counts them in one statement. Each owner's decision calls take
// the same bodies (an approval's none, a rejection's optional reason, kept as rejection_reason).
import { type Expression, type SelectQueryBuilder, sql } from "kysely";
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import type { Database } from "../../base/store/schema.js";

/** A request that waits for the operator: what it is called (`value`) and what else the operator reads (`detail`). */
export interface PendingRequest {
  kind: string;
  id: number;
  account_id: number;
  value: string;
  detail: string | null;
  created_at: number;
}

/** One kind's pending rows as a select of `PendingRequest` columns, without order or limit (a part of a union). */
export type PendingRequests = SelectQueryBuilder<Database, keyof Database, PendingRequest>;

/** `detail` of a kind that has none: a typed null, so that every part of the union has a text column there. */
export const NO_DETAIL = sql<string | null>`cast(null as text)`;

/** The username of the account `accountId` names, as column `account` of a select over the queue. */
export function requesterName(accountId: Expression<number>) {
  return sql<string>`(select username from accounts where accounts.id = ${accountId})`.as("account");
}

/** The longest reason a rejection keeps. */
export const MAX_REJECTION_REASON = 500;

/** The body of an approval (optional): nothing; an unknown field is refused, as in every body. */
export const ApprovalBody = Type.Object({}, { additionalProperties: false, title: "ApprovalBody" });
/** The body of a rejection (optional): the reason the account reads on its request. */
export const RejectionBody = Type.Object(
  { reason: Type.Optional(Type.Union([Type.String({ maxLength: MAX_REJECTION_REASON }), Type.Null()])) },
  { additionalProperties: false, title: "RejectionBody" },
);

/**
 * The route options of an `approve` or `reject` call by id: its body's schema, and the body
 * made optional (a POST without one decides with no reason).
 */
export function decisionBody(action: "approve" | "reject") {
  return {
    body: action === "reject" ? RejectionBody : ApprovalBody,
    preValidation: async (request: { body: unknown }) => {
      request.body ??= {};
    },
  };
}

/** The reason a decision's body holds, as sent (rejectionReason reads it). */
export function reasonOf(body: unknown): string | null {
  return (body as { reason?: string | null } | undefined)?.reason ?? null;
}

/**
 * A rejection's reason as stored: trimmed, null when blank or not given. Refused (field `reason`)
 * when longer than MAX_REJECTION_REASON or holding U+0000, from the API (whose schema also
 * says so) and the CLI alike.
 */
export function rejectionReason(raw: string | null | undefined): string | null {
  const reason = raw?.trim() || null;
  if (reason?.includes("\u0000")) {
    throw new GatewayError("invalid_request", "The reason cannot contain U+0000.", { field: "reason" });
  }
  if (reason && reason.length > MAX_REJECTION_REASON) {
    throw new GatewayError(
      "invalid_request",
      `The reason must be at most ${MAX_REJECTION_REASON} characters (got ${reason.length}).`,
      { field: "reason" },
    );
  }
  return reason;
}
