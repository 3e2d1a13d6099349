// Margin (issue 39, item 2): of the SMS and voice messages accepted in a window, the operator's
// revenue (what its customer was charged: the message's credits, or for a sub-account's message
// what the top of its tree was charged, the last of `upline`), the carriers' cost (each
// message's cost at submit, by its connector's cost card) and their difference, grouped by
// account, connector or the cost card's prefix. A refunded message (cancelled, failed before it
// reached a carrier, or failed by its carrier for a reason REFUND_CARRIER_REASONS refunded) brings
// no revenue; one never submitted costs nothing.
import { sql } from "kysely";
import type { Db } from "../../base/store/store.js";

export const MARGIN_GROUPS = ["account", "connector", "prefix"] as const;
export type MarginGroup = (typeof MARGIN_GROUPS)[number];

export interface MarginRow {
  /** The account id, connector or prefix; null: none (not submitted, or no cost row). */
  key: string | null;
  messages: number;
  /** Milli-credits. */
  revenue: number;
  cost: number;
  /** Submitted messages whose connector had no cost row for them (their cost counts as 0). */
  uncosted: number;
}

const KEYS: Record<MarginGroup, string> = { account: "account_id", connector: "connector", prefix: "cost_prefix" };

/** A message whose charge was given back: cancelled, failed before a carrier, or refunded for its carrier's reason. */
export const REFUNDED_MESSAGE = sql<boolean>`(status = 'cancelled' or (status = 'failed' and (submitted_at is null or carrier_refunded_at is not null)))`;

/** What the top of a reseller tree was charged: the last of "id:milli,…". */
function rootCharge(upline: string): number {
  const last = upline.slice(upline.lastIndexOf(",") + 1);
  return Number(last.slice(last.indexOf(":") + 1));
}

export async function marginRows(
  db: Db,
  window: { from: number; to: number; groupBy: MarginGroup },
): Promise<MarginRow[]> {
  const key = sql.ref(KEYS[window.groupBy]);
  const refunded = REFUNDED_MESSAGE;
  const result = await sql<{
    key: string | number | null;
    upline: string | null;
    n: string | number;
    charged: string | number | null;
    cost: string | number | null;
    uncosted: string | number | null;
  }>`
    select ${key} as key, upline, count(*) as n,
           sum(case when ${refunded} then 0 else credits end) as charged,
           sum(case when ${refunded} then 0 else 1 end) as kept,
           sum(coalesce(cost, 0)) as cost,
           sum(case when cost is null and submitted_at is not null then 1 else 0 end) as uncosted
      from messages
     where created_at >= ${window.from} and created_at < ${window.to} and channel in ('sms', 'voice')
     group by ${key}, upline`.execute(db);
  const rows = new Map<string | null, MarginRow>();
  for (const row of result.rows as ((typeof result.rows)[number] & { kept: string | number | null })[]) {
    const k = row.key === null ? null : String(row.key);
    const into = rows.get(k) ?? { key: k, messages: 0, revenue: 0, cost: 0, uncosted: 0 };
    into.messages += Number(row.n);
    into.revenue += row.upline ? rootCharge(row.upline) * Number(row.kept ?? 0) : Number(row.charged ?? 0);
    into.cost += Number(row.cost ?? 0);
    into.uncosted += Number(row.uncosted ?? 0);
    rows.set(k, into);
  }
  return [...rows.values()].sort((a, b) => b.revenue - b.cost - (a.revenue - a.cost));
}
