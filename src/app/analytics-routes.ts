// Delivery analytics (issue 38, item 2), read from the rollups messages/ keeps as messages change
// state (never a scan of the messages table):
//   GET /admin/api/analytics/delivery  every account's messages, or one `account`'s (the operator's
//                                      time zone, or `time_zone`: the filters of `analytics delivery`)
//   GET /api/v2/analytics/delivery     the account's own (no account or connector grouping)
// `from` and `to` as the message list takes them (ISO 8601; a bare date or time in the caller's
// zone), widened to whole 15 minutes; by default the last 30 days. `group_by`: account,
// connector, route, prefix, error_code, hour or day (default day; hours and days in the caller's zone).
//   GET /admin/api/analytics/margin    revenue, carriers' cost and margin of SMS and voice, by
//                                      account (default), connector or cost prefix
import { Type } from "typebox";
import { GatewayError } from "../base/core/errors.js";
import { isTimeZone } from "../base/core/time-zone-names.js";
import { resourceAnswer } from "../base/http/answer-schemas.js";
import { queryWindow } from "../base/http/query-params.js";
import { operatorAnswer, type TypedRoutes } from "../base/http/typed-routes.js";
import type { Runtime } from "../base/runtime/runtime.js";
import type { Db } from "../base/store/store.js";
import { requireAccount, usernamesOf } from "../domain/accounts/index.js";
import {
  alignedWindow,
  DELIVERY_GROUPS,
  type DeliveryGroup,
  deliveryAnalytics,
  MARGIN_GROUPS,
  type MarginGroup,
  marginRows,
} from "../domain/messages/index.js";
import { DeliveryAnalytics, MarginAnalytics } from "./analytics-schemas.js";

type Deps = Pick<Runtime, "store" | "clock">;

const DAY_MS = 86_400_000;
/** The longest window one call reads. */
export const ANALYTICS_MAX_DAYS = 400;

export const AnalyticsQuery = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
  group_by: Type.Optional(Type.String({ maxLength: 40 })),
});
type Query = { from?: string; to?: string; group_by?: string };
/** The operator's delivery analytics take the CLI's filters too: one account, and the zone to read in. */
const AdminDeliveryQuery = Type.Object({
  ...AnalyticsQuery.properties,
  account: Type.Optional(Type.String({ maxLength: 64 })),
  time_zone: Type.Optional(Type.String({ maxLength: 64 })),
});

const invalid = (field: string, message: string) => new GatewayError("invalid_request", message, { field });

/** The window and grouping a query asks for, checked; `allowed` the groupings this caller may ask for. */
export function analyticsRequest(query: Query, timeZone: string, now: number, allowed: readonly string[]) {
  const groupBy = (query.group_by?.trim() || "day") as DeliveryGroup;
  if (!allowed.includes(groupBy)) {
    throw invalid(
      "group_by",
      `Query parameter "group_by" must be one of ${allowed.join(", ")} (got "${query.group_by}").`,
    );
  }
  const window = queryWindow((name) => query[name]?.trim(), timeZone);
  const to = window.to ?? now;
  const from = window.from ?? to - 30 * DAY_MS;
  // A `from` alone may still fall after the default `to` (now).
  if (from >= to) throw invalid("to", 'Query parameter "to" must be after "from".');
  if (to - from > ANALYTICS_MAX_DAYS * DAY_MS) {
    throw invalid("from", `The window from "from" to "to" may be at most ${ANALYTICS_MAX_DAYS} days.`);
  }
  return { ...alignedWindow(from, to), groupBy };
}

/** The answer: the window read, and each row with its key as the caller reads it. */
export async function deliveryAnswer(
  db: Db,
  accountId: number | undefined,
  query: Query,
  timeZone: string,
  now: number,
  /** The operator's groupings (by account, by connector) even for one account's messages (the CLI's --account). */
  operator = accountId === undefined,
) {
  const allowed = operator ? DELIVERY_GROUPS : DELIVERY_GROUPS.filter((g) => g !== "account" && g !== "connector");
  const request = analyticsRequest(query, timeZone, now, allowed);
  const rows = await deliveryAnalytics(db, { ...request, accountId, timeZone });
  let keyOf = (key: string | null) => key;
  if (request.groupBy === "hour" || request.groupBy === "day") {
    keyOf = (key) => (key === null ? null : new Date(Number(key)).toISOString());
  } else if (request.groupBy === "account") {
    const names = await usernamesOf(
      db,
      rows.map((row) => Number(row.key)),
    );
    keyOf = (key) => names.get(Number(key)) ?? key;
  }
  return {
    from: new Date(request.from).toISOString(),
    to: new Date(request.to).toISOString(),
    group_by: request.groupBy,
    time_zone: timeZone,
    rows: rows.map((row) => ({ ...row, key: keyOf(row.key) })),
  };
}

const credits = (milli: number) => Math.round(milli) / 1000;

/** Revenue, cost and margin of the window's SMS and voice (GET /admin/api/analytics/margin, `prices margin`). */
export async function marginAnswer(db: Db, query: Query, timeZone: string, now: number) {
  const request = analyticsRequest({ ...query, group_by: query.group_by ?? "account" }, timeZone, now, MARGIN_GROUPS);
  const rows = await marginRows(db, { ...request, groupBy: request.groupBy as MarginGroup });
  const names =
    request.groupBy === "account"
      ? await usernamesOf(
          db,
          rows.map((row) => Number(row.key)),
        )
      : undefined;
  const total = { messages: 0, revenue: 0, cost: 0 };
  for (const row of rows) {
    total.messages += row.messages;
    total.revenue += row.revenue;
    total.cost += row.cost;
  }
  return {
    from: new Date(request.from).toISOString(),
    to: new Date(request.to).toISOString(),
    group_by: request.groupBy,
    rows: rows.map((row) => ({
      key: names && row.key !== null ? (names.get(Number(row.key)) ?? row.key) : row.key,
      messages: row.messages,
      revenue: credits(row.revenue),
      cost: credits(row.cost),
      margin: credits(row.revenue - row.cost),
      uncosted: row.uncosted,
    })),
    totals: {
      messages: total.messages,
      revenue: credits(total.revenue),
      cost: credits(total.cost),
      margin: credits(total.revenue - total.cost),
    },
  };
}

export function registerAdminAnalyticsRoutes(admin: TypedRoutes, ctx: Deps): void {
  admin.get(
    "/analytics/margin",
    { schema: { querystring: AnalyticsQuery, response: operatorAnswer(MarginAnalytics) } },
    async (request) => ({
      status: "success" as const,
      data: await marginAnswer(ctx.store.db, request.query, request.principal!.timeZone, ctx.clock.now().getTime()),
    }),
  );
  admin.get(
    "/analytics/delivery",
    { schema: { querystring: AdminDeliveryQuery, response: operatorAnswer(DeliveryAnalytics) } },
    async (request) => {
      const { account, time_zone, ...query } = request.query;
      const zone = time_zone?.trim() || request.principal!.timeZone;
      if (!isTimeZone(zone)) {
        throw invalid(
          "time_zone",
          `Query parameter "time_zone" must be an IANA time zone such as Asia/Kolkata or UTC (got "${time_zone}").`,
        );
      }
      const accountId = account?.trim() ? (await requireAccount(ctx.store.db, account.trim())).id : undefined;
      const now = ctx.clock.now().getTime();
      return {
        status: "success" as const,
        data: await deliveryAnswer(ctx.store.db, accountId, query, zone, now, true),
      };
    },
  );
}

export function registerV2AnalyticsRoutes(v2: TypedRoutes, ctx: Deps): void {
  v2.get(
    "/analytics/delivery",
    {
      config: { envelope: "status" },
      schema: {
        operationId: "getDeliveryAnalytics",
        summary: "Delivery analytics: the account's messages of a window by route, prefix, error code, hour or day",
        tags: ["messages"],
        querystring: AnalyticsQuery,
        response: { 200: resourceAnswer(DeliveryAnalytics) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      return {
        status: "success" as const,
        data: await deliveryAnswer(
          ctx.store.db,
          principal.accountId,
          request.query,
          principal.timeZone,
          ctx.clock.now().getTime(),
        ),
      };
    },
  );
}
