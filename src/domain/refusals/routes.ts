// The log of refusals, read: GET /api/v2/refusals (the account's own) and GET /admin/api/refusals
// (every account's, or one's with `account`; `account=-` for the unauthenticated ones), with the
// filters from, to, code, recipient, broadcast_id, job_id (the operator's: username too), newest
// first, a cursor (limit or per_page).

import type { Selectable } from "kysely";
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { cursorLimit, queryWindow } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Db, RefusalsTable } from "../../base/store/schema.js";
import { readableAccount, requireAccount, subaccountVia, usernamesOf } from "../accounts/index.js";
import { SubAccountParam } from "../accounts/v2-schemas.js";
import { findBulkJob } from "../messages/index.js";
import { OperatorRefusalPage, RefusalPage } from "./refusal-schemas.js";
import { decodeRefusalCursor, encodeRefusalCursor, listRefusals, type RefusalFilter } from "./rows.js";

type Deps = Pick<Runtime, "store">;

export const REFUSALS_LIMIT_DEFAULT = 50;
export const REFUSALS_LIMIT_MAX = 500;

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
export const REFUSAL_PARAMS = {
  from: text(40),
  to: text(40),
  code: text(64),
  recipient: text(320),
  broadcast_id: text(100),
  job_id: text(20),
  limit: text(10),
  per_page: text(10),
  cursor: text(100),
};
/** v2's own: a reseller lists the refusals of an account below it (any depth) with `subaccount`. */
const ListQuery = Type.Object({ ...REFUSAL_PARAMS, subaccount: SubAccountParam });
/** The operator's own: one account's (`-`: the unauthenticated), and the username a password login named. */
const AdminQuery = Type.Object({ ...REFUSAL_PARAMS, account: text(64), username: text(64) });
export type RefusalQuery = { [K in keyof typeof REFUSAL_PARAMS]?: string };

function invalid(field: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { field });
}

/** The filters and page of a query; a bad value is a 400 naming its parameter. */
export function refusalQuery(query: RefusalQuery, timeZone: string) {
  const filter: RefusalFilter = {};
  const given = (name: keyof RefusalQuery) => {
    const value = query[name]?.trim();
    if (value?.includes("\u0000")) throw invalid(name, `Query parameter "${name}" holds a NUL character.`);
    return value ? value : undefined;
  };
  Object.assign(filter, queryWindow(given, timeZone));
  const code = given("code");
  if (code !== undefined) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(code)) {
      throw invalid(
        "code",
        `Query parameter "code" must be an error code such as dlt_template_mismatch (got "${code}").`,
      );
    }
    filter.code = code;
  }
  const recipient = given("recipient");
  if (recipient !== undefined) filter.recipient = recipient;
  const broadcast = given("broadcast_id");
  if (broadcast !== undefined) filter.broadcastId = broadcast;
  const job = given("job_id");
  if (job !== undefined) {
    if (!/^[1-9]\d{0,15}$/.test(job) || !Number.isSafeInteger(Number(job))) {
      throw invalid("job_id", `Query parameter "job_id" must be a bulk job's id, a whole number (got "${job}").`);
    }
    filter.jobId = Number(job);
  }
  const limit = cursorLimit(query, REFUSALS_LIMIT_DEFAULT, REFUSALS_LIMIT_MAX);
  let before: number | undefined;
  const cursor = given("cursor");
  if (cursor !== undefined) {
    before = decodeRefusalCursor(cursor);
    if (before === undefined) {
      throw invalid("cursor", 'Query parameter "cursor" is not a cursor this list gave (use next_cursor as it is).');
    }
  }
  return { filter, limit, before };
}

/** The reader may know every level above the refused account: the operator. */
export const EVERY_LEVEL = Number.POSITIVE_INFINITY;

/**
 * A row as both routes answer it. `levelsKnown`: how many levels above the refused account the
 * reader may know (0: the account itself, 1: its parent, EVERY_LEVEL: the operator); a refusal a
 * level within them was short for reads that level's words (the account's own wallet, level 0, to
 * every reader: decision 0192), any other the words answered (decision 0158: a white-label
 * sub-account is not told a parent pays, nor which).
 */
export function describeRefusal(row: Selectable<RefusalsTable>, levelsKnown = 0) {
  const known = row.upline_reason !== null && row.upline_level !== null && row.upline_level <= levelsKnown;
  return {
    id: Number(row.id),
    at: new Date(Number(row.created_at)).toISOString(),
    family: row.family,
    operation: row.operation,
    recipients: row.recipients ? row.recipients.split(",") : [],
    recipient_count: row.recipient_count,
    sender: row.sender,
    text: row.text,
    http_status: row.http_status,
    code: row.code,
    answer: row.answer,
    reason: known ? row.upline_reason! : row.reason,
    request_id: row.request_id,
    address: row.address,
    broadcast_id: row.broadcast_id,
    job_id: row.job_id === null ? null : Number(row.job_id),
  };
}

/**
 * A bulk job's left-out recipients carry its batch id, which the broadcast index finds: the
 * job's own (of the account) narrows a job_id filter to it; an unknown job lists nothing.
 */
async function narrowToJob(db: Db, filter: RefusalFilter, accountId: number | null | undefined) {
  if (filter.jobId === undefined) return;
  if (typeof accountId !== "number") {
    throw invalid("job_id", 'Query parameter "job_id" needs "account" (a bulk job is one account\'s).');
  }
  const job = await findBulkJob(db, accountId, filter.jobId);
  filter.broadcastId =
    filter.broadcastId === undefined || filter.broadcastId === job?.batch_id ? (job?.batch_id ?? "") : "";
}

/** One page, each row with its account's username (the operator's answer). */
export async function operatorRefusalPage(
  db: Db,
  query: RefusalQuery & { account?: string; username?: string },
  timeZone: string,
) {
  const { filter, limit, before } = refusalQuery(query, timeZone);
  const username = query.username?.trim();
  if (username?.includes("\u0000")) throw invalid("username", 'Query parameter "username" holds a NUL character.');
  if (username) filter.username = username;
  const account = query.account?.trim();
  if (account === "-") filter.accountId = null;
  else if (account) filter.accountId = (await requireAccount(db, account)).id;
  await narrowToJob(db, filter, filter.accountId);
  const page = await listRefusals(db, filter, limit, before);
  const names = await usernamesOf(
    db,
    page.rows.flatMap((row) => (row.account_id === null ? [] : [Number(row.account_id)])),
  );
  return {
    status: "success" as const,
    data: page.rows.map((row) => ({
      account: row.account_id === null ? null : (names.get(Number(row.account_id)) ?? null),
      username: row.username,
      ...describeRefusal(row, EVERY_LEVEL),
    })),
    meta: { limit, next_cursor: page.next === undefined ? null : encodeRefusalCursor(page.next) },
  };
}

export function registerV2RefusalRoutes(v2: TypedRoutes, ctx: Deps): void {
  v2.get(
    "/refusals",
    {
      config: { envelope: "status" },
      schema: {
        operationId: "listRefusals",
        summary: "The account's refused sends of every family, newest first, with filters and a cursor",
        tags: ["messages"],
        querystring: ListQuery,
        response: { 200: RefusalPage },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const { filter, limit, before } = refusalQuery(request.query, principal.timeZone);
      const listed = await readableAccount(ctx.store.db, principal.accountId, request.query.subaccount);
      filter.accountId = listed.id;
      await narrowToJob(ctx.store.db, filter, filter.accountId);
      const page = await listRefusals(ctx.store.db, filter, limit, before);
      // A reseller reading its tree's refusals knows the levels up to its own (decision 0158).
      const levelsKnown = listed.levels;
      return {
        status: "success",
        data: page.rows.map((row) => describeRefusal(row, levelsKnown)),
        meta: { limit, next_cursor: page.next === undefined ? null : encodeRefusalCursor(page.next) },
        ...subaccountVia(listed),
      };
    },
  );
}

export function registerAdminRefusalRoutes(admin: TypedRoutes, ctx: Deps): void {
  admin.get(
    "/refusals",
    { schema: { querystring: AdminQuery, response: { "2xx": OperatorRefusalPage } } },
    async (request) => operatorRefusalPage(ctx.store.db, request.query, request.principal!.timeZone),
  );
}
