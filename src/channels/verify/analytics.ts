// Conversion of an account's verifications per channel (of the last send) and recipient country:
// started, approved, the rate, and the mean time from start to approval.
import { sql } from "kysely";
import { parseE164 } from "../../base/core/e164.js";
import type { Db } from "../../base/store/store.js";

/** The recipient's country: IN for an Indian mobile (stored as 10 digits), null for an address. */
export function countryOf(recipient: string): string | null {
  if (recipient.includes("@")) return null;
  if (/^[6-9]\d{9}$/.test(recipient)) return "IN";
  return parseE164(recipient)?.country ?? null;
}

export interface Conversion {
  channel: string;
  country: string | null;
  started: number;
  approved: number;
  /** approved / started, 0 when none started. */
  conversion_rate: number;
  /** Mean seconds from start to approval, null when none was approved. */
  avg_seconds_to_approve: number | null;
}

function conversion(row: { started: number; approved: number; approve_ms: number | null }) {
  const started = Number(row.started);
  const approved = Number(row.approved);
  return {
    started,
    approved,
    conversion_rate: started === 0 ? 0 : Math.round((approved / started) * 10_000) / 10_000,
    avg_seconds_to_approve:
      approved === 0 || row.approve_ms === null ? null : Math.round(Number(row.approve_ms) / approved / 100) / 10,
  };
}

/** The account's verifications started in [from, to), per channel and country, and in all. */
export async function verifyConversion(
  db: Db,
  accountId: number,
  window: { from?: number; to?: number },
): Promise<{ total: Omit<Conversion, "channel" | "country">; rows: Conversion[] }> {
  let query = db
    .selectFrom("verifications")
    .select((eb) => [
      "channel",
      "country",
      eb.fn.countAll<number>().as("started"),
      sql<number>`sum(case when status = 'approved' then 1 else 0 end)`.as("approved"),
      sql<number | null>`sum(case when status = 'approved' then done_at - created_at end)`.as("approve_ms"),
    ])
    .where("account_id", "=", accountId);
  if (window.from !== undefined) query = query.where("created_at", ">=", window.from);
  if (window.to !== undefined) query = query.where("created_at", "<", window.to);
  const grouped = await query.groupBy(["channel", "country"]).orderBy("channel").orderBy("country").execute();
  const rows = grouped.map((row) => ({ channel: row.channel, country: row.country, ...conversion(row) }));
  const sum = (pick: (row: (typeof grouped)[number]) => number | null) =>
    grouped.reduce((total, row) => total + Number(pick(row) ?? 0), 0);
  const total = conversion({
    started: sum((r) => r.started),
    approved: sum((r) => r.approved),
    approve_ms: sum((r) => r.approve_ms),
  });
  return { total, rows };
}
