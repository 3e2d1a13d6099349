// The answers of delivery analytics (GET /admin/api/analytics/delivery, GET /api/v2/analytics/delivery)
// as schemas. Typebox only: the console types its analytics page with them.
import { Type } from "typebox";

const Count = Type.Integer({ minimum: 0 });
const Nullable = <T extends ReturnType<typeof Type.Number>>(schema: T) => Type.Union([schema, Type.Null()]);

/** One group's counts: messages accepted in the window, by what became of them. */
export const DeliveryAnalyticsRow = Type.Object({
  /** The username, connector, route code, prefix or error code; an hour's or day's start as ISO 8601 UTC; null for none (not yet routed, not failed). */
  key: Type.Union([Type.String(), Type.Null()]),
  sent: Count,
  delivered: Count,
  failed: Count,
  pending: Count,
  /** Failed before any carrier carried them (refused at submit, refunded): not in sent or failed. */
  rejected: Count,
  /** delivered ÷ (delivered + failed): over the messages carried; null when both are 0. */
  delivery_rate: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  /** Accept → delivery receipt, from a histogram of √2-wide buckets (within about 21 %). */
  latency_p50_ms: Nullable(Type.Number({ minimum: 0 })),
  latency_p95_ms: Nullable(Type.Number({ minimum: 0 })),
});

/** The window read (widened to whole 15 minutes), how it is grouped, and its rows. */
export const DeliveryAnalytics = Type.Object({
  from: Type.String(),
  to: Type.String(),
  group_by: Type.String(),
  time_zone: Type.String(),
  rows: Type.Array(DeliveryAnalyticsRow),
});

/** One group's revenue, cost and margin in credits (GET /admin/api/analytics/margin). */
export const MarginRow = Type.Object({
  /** The username, connector or cost card prefix; null for none (not submitted, no cost row). */
  key: Type.Union([Type.String(), Type.Null()]),
  messages: Count,
  /** Credits charged (refunds taken off). */
  revenue: Type.Number(),
  /** Credits the carriers charge, by their cost cards. */
  cost: Type.Number(),
  margin: Type.Number(),
  /** Submitted messages whose connector had no cost row for them (their cost counts as 0). */
  uncosted: Count,
});

export const MarginAnalytics = Type.Object({
  from: Type.String(),
  to: Type.String(),
  group_by: Type.String(),
  rows: Type.Array(MarginRow),
  totals: Type.Object({ messages: Count, revenue: Type.Number(), cost: Type.Number(), margin: Type.Number() }),
});
