// The per-account daily SMS counter behind the flood limit, moved in the Acceptor's transaction
// and read by the account's credit detail.
import { GatewayError } from "../../base/core/errors.js";
import { localDayRange } from "../../base/core/time.js";
import type { Db, Store } from "../../base/store/store.js";

/**
 * Adds `n` to the account's counter for `day`. With a limit, only if the total stays within
 * it; returns whether the count was taken. A negative `n` gives back a count taken earlier.
 */
export async function countFlood(
  store: Store,
  trx: Db,
  accountId: number,
  day: string,
  n: number,
  limit: number,
): Promise<boolean> {
  if (n < 0) {
    await store
      .statement("update flood_counters set count = count + ? where account_id = ? and day = ?")
      .run(trx, [n, accountId, day]);
    return true;
  }
  const bounded = limit > 0;
  if (bounded && n > limit) return false;
  // One statement: the day's first count inserts, a later one adds within the limit (0: none).
  const counted = await store
    .statement(
      "insert into flood_counters (account_id, day, count) values (?, ?, ?) on conflict (account_id, day) do update set count = flood_counters.count + excluded.count where ? = 0 or flood_counters.count + excluded.count <= ?",
    )
    .run(trx, [accountId, day, n, bounded ? 1 : 0, limit]);
  return counted > 0;
}

/** The account's count for `day` (its own date, as localDay writes it); 0 before its first send of the day. */
export async function floodCount(db: Db, accountId: number, day: string): Promise<number> {
  const row = await db
    .selectFrom("flood_counters")
    .select("count")
    .where("account_id", "=", accountId)
    .where("day", "=", day)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/**
 * The refusal of a send over the daily limit: a 429 whose Retry-After (`retry_after`) is the
 * seconds until `day` ends in the account's zone, when its counter starts again from 0.
 */
export function floodLimitReached(limit: number, day: string, zone: string, now: number): GatewayError {
  const dayEnds = localDayRange(day, zone)?.[1].getTime() ?? now + 1000;
  return new GatewayError("flood_limit_exceeded", `The daily SMS limit of ${limit} is reached.`, {
    retry_after: Math.max(1, Math.ceil((dayEnds - now) / 1000)),
  });
}
