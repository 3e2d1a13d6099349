// GET /api/v2/messages: the account's messages of every channel, newest first, with filters
// and a cursor. The adapter reads and checks the query (a bad filter is a 400 naming it) and
// renders each row as the status call does; the query itself is messages/listing.ts.

import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { BROADCAST_ID, storedQueueId } from "../../base/core/ids.js";
import { cursorLimit, MAX_ROW_ID, queryInt, queryWindow } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { MessageStatus } from "../../base/store/schema.js";
import { readableAccount, subaccountVia } from "../../domain/accounts/index.js";
import { SubAccountParam } from "../../domain/accounts/v2-schemas.js";
import {
  decodeCursor,
  encodeCursor,
  type ListPosition,
  listMessages,
  type MessageFilter,
  recipientForms,
} from "../../domain/messages/index.js";
import { deliveryReports } from "./report-format.js";
import { MessagePage } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store">;

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 500;

const CHANNELS = ["sms", "voice", "email", "whatsapp"];
/** Public statuses and the stored ones each stands for (`queued` includes a claimed `dispatching`). */
const STATUSES: Record<string, MessageStatus[]> = {
  scheduled: ["scheduled"],
  queued: ["queued", "dispatching"],
  submitted: ["submitted"],
  delivered: ["delivered"],
  failed: ["failed"],
  cancelled: ["cancelled"],
  sending: ["sending"],
  sent: ["sent"],
  read: ["read"],
};

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
/** The list's query parameters (the operator's list takes them too, with its own beside them). */
export const LIST_PARAMS = {
  channel: text(100),
  status: text(200),
  recipient: text(320),
  from: text(40),
  to: text(40),
  broadcast_id: text(100),
  job_id: text(20),
  id: text(100),
  limit: text(10),
  /** The spec's page size name, read as `limit` (a cursor list has no page numbers). */
  per_page: text(10),
  cursor: text(200),
};
/** v2's own: a reseller lists one of its sub-accounts' messages with `subaccount`. */
const ListQuery = Type.Object({ ...LIST_PARAMS, subaccount: SubAccountParam });
type ListQuery = { [K in keyof typeof ListQuery.properties]?: string };

function invalid(field: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { field });
}

/** A comma-separated list whose every item is one of `allowed`. */
function oneOf(value: string, field: string, allowed: readonly string[]): string[] {
  const items = value
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== "");
  const unknown = items.filter((item) => !allowed.includes(item));
  if (items.length === 0 || unknown.length > 0) {
    throw invalid(field, `Query parameter "${field}" takes ${allowed.join(", ")}, comma-separated (got "${value}").`);
  }
  return items;
}

/** Reads the filters; absent and empty parameters filter nothing. */
export function listFilter(query: ListQuery, timeZone: string): MessageFilter {
  const given = (name: keyof ListQuery) => {
    const value = query[name]?.trim();
    if (value?.includes("\u0000")) throw invalid(name, `Query parameter "${name}" holds a NUL character.`);
    return value ? value : undefined;
  };
  const filter: MessageFilter = {};
  const channel = given("channel");
  if (channel) filter.channels = oneOf(channel, "channel", CHANNELS);
  const status = given("status");
  if (status) filter.statuses = oneOf(status, "status", Object.keys(STATUSES)).flatMap((s) => STATUSES[s]!);
  const recipient = given("recipient");
  if (recipient) filter.recipients = recipientForms(recipient);
  const broadcastId = given("broadcast_id");
  if (broadcastId) filter.broadcastId = broadcastId;
  if (given("job_id")) filter.jobId = queryInt(given("job_id"), "job_id", 0, 1, MAX_ROW_ID);
  const id = given("id");
  if (id) {
    // As the status call reads its id: a queue id, a broadcast id, else the carrier's id.
    const queueId = storedQueueId(id);
    if (queueId) filter.queueId = queueId;
    else if (BROADCAST_ID.test(id)) {
      if (filter.broadcastId !== undefined && filter.broadcastId !== id) {
        throw invalid("id", `"id" names the broadcast ${id} and "broadcast_id" another one.`);
      }
      filter.broadcastId = id;
    } else filter.upstreamId = id;
  }
  Object.assign(filter, queryWindow(given, timeZone));
  return filter;
}

/** The route codes and names the operator's `route` filter takes, as messages store them. */
const ROUTES: Record<string, string> = {
  t: "transactional",
  p: "promotional",
  ps: "promotional_sender",
  i: "international",
  v: "voice",
  transactional: "transactional",
  promotional: "promotional",
  promotional_sender: "promotional_sender",
  international: "international",
  voice: "voice",
  whatsapp: "whatsapp",
  email: "email",
};

/**
 * The operator's filters beside the account's (GET /admin/api/messages): `connector`, `error_code`
 * and `route` (T, P, PS, I, V or a channel's name), each comma-separated.
 */
export function operatorFilter(query: { connector?: string; error_code?: string; route?: string }): MessageFilter {
  const list = (name: "connector" | "error_code" | "route") => {
    const value = query[name]?.trim();
    if (!value) return undefined;
    if (value.includes("\u0000")) throw invalid(name, `Query parameter "${name}" holds a NUL character.`);
    return value
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
  };
  const filter: MessageFilter = {};
  const connectors = list("connector");
  if (connectors) filter.connectors = connectors;
  const errorCodes = list("error_code");
  if (errorCodes) filter.errorCodes = errorCodes;
  const routes = list("route");
  if (routes) {
    filter.routes = routes.map((route) => {
      const stored = Object.hasOwn(ROUTES, route.toLowerCase()) ? ROUTES[route.toLowerCase()] : undefined;
      if (!stored) {
        throw invalid(
          "route",
          `Query parameter "route" takes T, P, PS, I, V, whatsapp or email, comma-separated (got "${route}").`,
        );
      }
      return stored;
    });
  }
  return filter;
}

export function registerMessageListRoute(v2: TypedRoutes, ctx: Deps): void {
  v2.get(
    "/messages",
    {
      config: { envelope: "status" },
      schema: {
        operationId: "listMessages",
        summary: "The account's messages of every channel, newest first, with filters and a cursor",
        tags: ["messages"],
        querystring: ListQuery,
        response: { 200: MessagePage },
      },
    },
    async (request) => {
      const query = request.query;
      const principal = request.principal!;
      const filter = listFilter(query, principal.timeZone);
      const limit = cursorLimit(query, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX);
      let after: ListPosition | undefined;
      if (query.cursor) {
        after = decodeCursor(query.cursor);
        if (!after)
          throw invalid(
            "cursor",
            'Query parameter "cursor" is not a cursor this list gave (use next_cursor as it is).',
          );
      }
      const listed = await readableAccount(ctx.store.db, principal.accountId, query.subaccount);
      const page = await listMessages(ctx.store.db, listed.id, filter, limit, after);
      return {
        status: "success",
        data: await deliveryReports(ctx.store.db, page.rows),
        meta: { limit, next_cursor: page.next ? encodeCursor(page.next) : null },
        ...subaccountVia(listed),
      };
    },
  );
}
