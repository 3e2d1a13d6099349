// The parts of the operator's approval queue (admin/approvals.ts): each folder that owns a kind
// of request (accounts/: sender IDs, templates, DLT entities and headers; inbound/: keywords;
// email/: domains; voice/: caller numbers) selects its pending rows in the one shape below, and
// admin/ unions the parts, pages and counts them in one statement.
import { type Expression, type SelectQueryBuilder, sql } from "kysely";
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
