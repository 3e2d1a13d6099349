// Delivery analytics (issue 38): what the rollups of migration 0035 count, read for a window and
// grouped by account, connector, route, prefix, error code, or the caller's hours or days. The
// writers of messages keep the rollups (rollups.ts); this file only reads them (and records the prefix
// length, ANALYTICS_PREFIX_DIGITS). A window is whole 15-minute buckets: whole UTC days are read
// from the day rows, the edges from the 15-minute ones, so 30 days read about 30 + 190 buckets of
// rows per key, not one row per message. Hours and days in the caller's time zone are summed from
// the 15-minute buckets (India is UTC+5:30, Nepal +5:45); for every account at once, and for the
// prefixes, from the rows that count all accounts (account_id 0). Percentiles come from the histogram.
import { sql } from "kysely";
import { DateTime } from "luxon";
import { LATENCY_BOUNDS_MS, LATENCY_COLUMNS } from "../../base/store/latency-buckets.js";
import type { Db } from "../../base/store/store.js";
import { loadPrefixLengths } from "./rollups.js";

export const DELIVERY_GROUPS = ["account", "connector", "route", "prefix", "error_code", "hour", "day"] as const;
export type DeliveryGroup = (typeof DELIVERY_GROUPS)[number];

/** The stored bucket: every window is widened to whole ones. */
export const ROLLUP_BUCKET_MS = 15 * 60_000;
const DAY_MS = 86_400_000;

export interface DeliveryQuery {
  /** One account's messages, or every account's. */
  accountId?: number;
  /** Multiples of ROLLUP_BUCKET_MS (alignedWindow). */
  from: number;
  to: number;
  groupBy: DeliveryGroup;
  timeZone: string;
}

export interface DeliveryRow {
  /** The value grouped by: an account id (as text), connector, route code, prefix, error code, or a bucket's start (ms, as text); null for none. */
  key: string | null;
  sent: number;
  delivered: number;
  failed: number;
  pending: number;
  /** Failed before any carrier carried them (refused at submit, refunded): not in sent or failed. */
  rejected: number;
  /** delivered ÷ (delivered + failed): over the messages carried; null when both are 0. */
  delivery_rate: number | null;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
}

interface Sums {
  counts: number[];
  histogram: number[];
}

/** The window widened to whole buckets: `from` down, `to` up. */
export function alignedWindow(from: number, to: number): { from: number; to: number } {
  return {
    from: Math.floor(from / ROLLUP_BUCKET_MS) * ROLLUP_BUCKET_MS,
    to: Math.ceil(to / ROLLUP_BUCKET_MS) * ROLLUP_BUCKET_MS,
  };
}

const COUNT_COLUMNS = ["sent", "delivered", "failed", "pending", "rejected"];
const COUNTS = COUNT_COLUMNS.length;
const SUM_COLUMNS = [...COUNT_COLUMNS, ...LATENCY_COLUMNS];
const SUM_LIST = SUM_COLUMNS.map((column) => `sum(${column}) as ${column}`).join(", ");

/** One range of one span's rows, summed per `group` (value, account_id or bucket). */
async function sumRange(
  db: Db,
  query: DeliveryQuery,
  span: "q" | "d",
  dim: string,
  group: "value" | "account_id" | "bucket",
  from: number,
  to: number,
): Promise<Array<{ key: string; sums: number[] }>> {
  if (from >= to) return [];
  // Every account's hours, days and prefixes are read from the rows that count all accounts at
  // once (account 0, dimensions `*` and `*prefix`).
  const whole = query.accountId === undefined && (dim === "prefix" || (dim === "" && group === "bucket"));
  const stored = whole ? `*${dim}` : dim;
  const account = query.accountId !== undefined ? sql` and account_id = ${query.accountId}` : sql``;
  const result = await sql<Record<string, unknown>>`select ${sql.raw(group)} as k, ${sql.raw(SUM_LIST)}
      from delivery_rollups
     where span = ${span} and dim = ${stored} and bucket >= ${from} and bucket < ${to}${account}
     group by ${sql.raw(group)}`.execute(db);
  return result.rows.map((row) => ({ key: String(row.k), sums: SUM_COLUMNS.map((column) => Number(row[column])) }));
}

/** The rows of a window grouped as asked, in key order for hours and days, else the most sent first. */
export async function deliveryAnalytics(db: Db, query: DeliveryQuery): Promise<DeliveryRow[]> {
  const totals = new Map<string, Sums>();
  const add = (key: string, sums: number[]) => {
    let entry = totals.get(key);
    if (!entry) {
      entry = { counts: COUNT_COLUMNS.map(() => 0), histogram: LATENCY_COLUMNS.map(() => 0) };
      totals.set(key, entry);
    }
    for (let i = 0; i < COUNTS; i++) entry.counts[i] = (entry.counts[i] ?? 0) + (sums[i] ?? 0);
    for (let i = 0; i < entry.histogram.length; i++)
      entry.histogram[i] = (entry.histogram[i] ?? 0) + (sums[COUNTS + i] ?? 0);
  };
  if (query.groupBy === "hour" || query.groupBy === "day") {
    const toLocal = localBucketStart(query.groupBy, query.timeZone, query.from, query.to);
    for (const row of await sumRange(db, query, "q", "", "bucket", query.from, query.to)) {
      add(String(toLocal(Number(row.key))), row.sums);
    }
  } else {
    const dim = query.groupBy === "account" ? "" : query.groupBy;
    const group = query.groupBy === "account" ? "account_id" : "value";
    const firstDay = Math.ceil(query.from / DAY_MS) * DAY_MS;
    const lastDay = Math.floor(query.to / DAY_MS) * DAY_MS;
    const ranges: Array<["q" | "d", number, number]> =
      firstDay < lastDay
        ? [
            ["q", query.from, firstDay],
            ["d", firstDay, lastDay],
            ["q", lastDay, query.to],
          ]
        : [["q", query.from, query.to]];
    for (const [span, from, to] of ranges) {
      for (const row of await sumRange(db, query, span, dim, group, from, to)) add(row.key, row.sums);
    }
  }
  const rows: DeliveryRow[] = [];
  for (const [key, { counts, histogram }] of totals) {
    const [sent = 0, delivered = 0, failed = 0, pending = 0, rejected = 0] = counts;
    if (sent === 0 && rejected === 0) continue;
    rows.push({
      key: key === "" ? null : key,
      sent,
      delivered,
      failed,
      pending,
      rejected,
      delivery_rate: delivered + failed === 0 ? null : Math.round((delivered / (delivered + failed)) * 10_000) / 10_000,
      latency_p50_ms: percentile(histogram, 0.5),
      latency_p95_ms: percentile(histogram, 0.95),
    });
  }
  if (query.groupBy === "hour" || query.groupBy === "day") rows.sort((a, b) => Number(a.key) - Number(b.key));
  else rows.sort((a, b) => b.sent - a.sent || b.rejected - a.rejected || String(a.key).localeCompare(String(b.key)));
  return rows;
}

/**
 * Maps a 15-minute bucket's start to the start of its hour or day in `zone`. When the zone's offset
 * is the same at every day's start in the window and at its end (always in India and Nepal; clocks
 * change at night, never twice in a day), arithmetic on that offset; otherwise one zone look-up per
 * hour or day.
 */
function localBucketStart(unit: "hour" | "day", zone: string, from: number, to: number): (bucket: number) => number {
  const size = unit === "hour" ? 3_600_000 : DAY_MS;
  const offset = DateTime.fromMillis(from, { zone }).offset;
  let constant = DateTime.fromMillis(to, { zone }).offset === offset;
  for (let at = from + DAY_MS; constant && at < to; at += DAY_MS) {
    constant = DateTime.fromMillis(at, { zone }).offset === offset;
  }
  if (constant) {
    const shift = offset * 60_000;
    return (bucket) => Math.floor((bucket + shift) / size) * size - shift;
  }
  let start = Number.NaN;
  let end = Number.NaN;
  return (bucket) => {
    if (!(bucket >= start && bucket < end)) {
      const local = DateTime.fromMillis(bucket, { zone }).startOf(unit);
      start = local.toMillis();
      end = local.plus(unit === "hour" ? { hours: 1 } : { days: 1 }).toMillis();
    }
    return start;
  };
}

/**
 * The latency under which a share `p` of the delivered messages came, from the histogram:
 * linear within the bucket it falls in (buckets are √2 wide, so within ±21 %); in the last,
 * open bucket, its lower bound (at least that). Null when nothing was delivered.
 */
export function percentile(histogram: readonly number[], p: number): number | null {
  const total = histogram.reduce((sum, n) => sum + n, 0);
  if (total <= 0) return null;
  const rank = p * total;
  let before = 0;
  for (let k = 0; k < histogram.length; k++) {
    const n = histogram[k] ?? 0;
    if (n > 0 && before + n >= rank) {
      const lower = k === 0 ? 0 : (LATENCY_BOUNDS_MS[k - 1] ?? 0);
      const upper = LATENCY_BOUNDS_MS[k];
      if (upper === undefined) return lower;
      return Math.round(lower + ((upper - lower) * (rank - before)) / n);
    }
    before += n;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] ?? null;
}

/**
 * Records ANALYTICS_PREFIX_DIGITS for the messages accepted from `now` on, when it differs from
 * the length in force (a message keeps the length of its accept time, so its counts never split).
 */
export async function recordPrefixDigits(db: Db, digits: number, now: number): Promise<void> {
  const current = await db
    .selectFrom("delivery_rollup_prefix")
    .select("digits")
    .orderBy("since", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!current || Number(current.digits) !== digits) {
    await db
      .insertInto("delivery_rollup_prefix")
      .values({ since: now, digits })
      .onConflict((oc) => oc.column("since").doNothing())
      .execute();
  }
  await loadPrefixLengths(db);
}
