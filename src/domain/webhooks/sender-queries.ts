// The webhook sender's statements over webhook_deliveries and webhook_attempts: the claim, the
// upkeep of leases and old rows, the recording of attempts' outcomes, and the backlog that
// /metrics reports.
import { sql } from "kysely";
import type { WebhookDeliveryRow } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { givenUpForRemovedUrls } from "./endpoint-changes.js";

/** Finished deliveries deleted per upkeep round, once past the retention period. */
const PRUNE_BATCH = 5_000;
/** Due deliveries claimable now (oldest first) looked at per claim, whatever the backlog. */
const CLAIM_WINDOW = 2_000;

/** What one POST of a delivery came to. */
export interface Outcome {
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

/**
 * Deliveries whose sender died (lease expired) go back to pending; finished deliveries past
 * the retention period are deleted with their attempts, at most PRUNE_BATCH a round.
 */
export async function deliveriesUpkeep(store: Store, now: number, retentionMs: number): Promise<void> {
  await store.transaction(async (trx) => {
    await trx
      .updateTable("webhook_deliveries")
      .set({ status: "pending", lease_until: null })
      .where("status", "=", sql.lit("delivering"))
      .where("lease_until", "<", now)
      .execute();
    const old = await trx
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("done_at", "is not", null)
      .where("done_at", "<", now - retentionMs)
      .limit(PRUNE_BATCH)
      .execute();
    if (old.length === 0) return;
    const ids = old.map((row) => row.id);
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500);
      await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", part).execute();
      await trx.deleteFrom("webhook_deliveries").where("id", "in", part).execute();
    }
  });
}

/** Deliveries written as claimed that a stopped sender did not send go back to pending. */
export function unclaimDeliveries(db: Db, ids: readonly number[]): Promise<unknown> {
  return db
    .updateTable("webhook_deliveries")
    .set({ status: "pending", lease_until: null, attempts: sql`attempts - 1` })
    .where("id", "in", [...ids])
    .where("status", "=", sql.lit("delivering"))
    .execute();
}

/**
 * Picks due deliveries, at most `perAccount` per account minus what the account has in flight
 * here, oldest first; an earlier delivery with the same key still open holds later ones
 * back. Those held back are passed over before the window is cut: after a receiver failed
 * for a while, thousands of messages have an event in back-off and a later one due, and a
 * window of those alone claimed nothing, ever (found by bench/faults). The UPDATE re-checks
 * `pending`, so two workers never both take one delivery, and gives each the account's current
 * URL for its event (an email's notifyurl, which is no account URL, stays).
 */
export async function claimDueDeliveries(
  store: Store,
  claim: { now: number; limit: number; perAccount: number; leaseMs: number; inFlight: ReadonlyMap<number, number> },
): Promise<WebhookDeliveryRow[]> {
  const { now, limit, perAccount, inFlight } = claim;
  // Accounts already at their cap here are left out of the scan, so a slow endpoint's
  // backlog never fills the window the others are picked from.
  const saturated = [...inFlight].filter(([, n]) => n >= perAccount).map(([id]) => id);
  const excluded = saturated.length > 0 ? sql`and account_id not in (${sql.join(saturated)})` : sql``;
  const candidates = await sql<{ id: number; account_id: number }>`
    select id, account_id from (
      select d.id, d.account_id, d.next_attempt_at,
             row_number() over (partition by d.account_id order by d.next_attempt_at, d.id) as n
        from (select id, account_id, next_attempt_at from webhook_deliveries d
               where status = 'pending' and next_attempt_at <= ${now} ${excluded}
                 and not exists (select 1 from webhook_deliveries e
                                  where e.order_key = d.order_key and e.id < d.id
                                    and e.status in ('pending', 'delivering'))
               order by next_attempt_at, id
               limit ${Math.min(CLAIM_WINDOW, limit * 4)}) d
    ) c
    where c.n <= ${perAccount}
    order by c.next_attempt_at, c.id
    limit ${limit}`.execute(store.db);
  const taken = new Map<number, number>();
  const ids: number[] = [];
  for (const { id, account_id } of candidates.rows) {
    if (ids.length >= limit) break;
    const used = (inFlight.get(account_id) ?? 0) + (taken.get(account_id) ?? 0);
    if (used >= perAccount) continue;
    taken.set(account_id, (taken.get(account_id) ?? 0) + 1);
    ids.push(id);
  }
  if (ids.length === 0) return [];
  return store.transaction((trx) =>
    trx
      .updateTable("webhook_deliveries")
      .set({
        status: "delivering",
        lease_until: now + claim.leaseMs,
        attempts: sql`attempts + 1`,
        // The account's URL for the event as it is now: a report written just as the account
        // changed it may have read the old one from the outbox's cache (endpoint-changes.ts).
        url: sql`coalesce((select e.url from webhook_endpoints e
                            where e.account_id = webhook_deliveries.account_id
                              and e.event = webhook_deliveries.event), webhook_deliveries.url)`,
      })
      .where("id", "in", ids)
      .where("status", "=", "pending")
      .returningAll()
      .execute(),
  );
}

/**
 * One transaction for a batch of outcomes: an attempt row each (with the URL it posted to), and
 * each delivery's new status (`statuses`, in the batch's order), its last answer and its next
 * attempt (`nextAttemptAt`); one to retry whose URL the account removed meanwhile is given up.
 */
export async function recordOutcomes(
  store: Store,
  batch: readonly { delivery: WebhookDeliveryRow; outcome: Outcome }[],
  statuses: readonly ("delivered" | "failed" | "pending")[],
  now: number,
  nextAttemptAt: (delivery: WebhookDeliveryRow) => number,
): Promise<void> {
  await store.transaction(async (trx) => {
    await store.insertMany(
      trx,
      "webhook_attempts",
      batch.map(({ delivery, outcome }) => ({
        delivery_id: delivery.id,
        attempt: delivery.attempts,
        status_code: outcome.statusCode,
        latency_ms: outcome.latencyMs,
        error: outcome.error,
        at: now,
        url: delivery.url,
      })),
    );
    // One statement per 500 outcomes.
    for (let k = 0; k < batch.length; k += 500) {
      const values = batch.slice(k, k + 500).map(({ delivery, outcome }, index) => {
        const status = statuses[k + index]!;
        const done = status === "pending" ? null : now;
        const next = done ?? nextAttemptAt(delivery);
        return sql`(cast(${delivery.id} as bigint), ${status}, cast(${outcome.statusCode} as integer), ${outcome.error}, cast(${next} as bigint), cast(${done} as bigint), ${delivery.url})`;
      });
      // A delivery the account re-pointed while this attempt was under way (its url is no longer
      // the one posted to) retries at once: the back-off was the old endpoint's.
      await sql`
        with v(v_id, v_status, v_code, v_error, v_next, v_done, v_url) as (values ${sql.join(values)})
        update webhook_deliveries
           set status = v.v_status, lease_until = null, last_status = v.v_code, last_error = v.v_error,
               next_attempt_at = case when v.v_done is null and webhook_deliveries.url <> v.v_url
                                      then cast(${now} as bigint) else v.v_next end,
               done_at = v.v_done
          from v
         where webhook_deliveries.id = v.v_id and webhook_deliveries.status = 'delivering'`.execute(trx);
    }
    const retrying = batch.filter((_, index) => statuses[index] === "pending").map(({ delivery }) => delivery.id);
    for (let k = 0; k < retrying.length; k += 500) {
      await givenUpForRemovedUrls(trx, retrying.slice(k, k + 500), now);
    }
  });
}

/**
 * The deliveries of one account's endpoint waiting out a retry's back-off, due now: the
 * endpoint answers again, and after an outage of an hour their back-off has grown to an hour.
 * Answers how many.
 */
export async function retryNow(db: Db, accountId: number, url: string, now: number): Promise<number> {
  // Literal status: SQLite uses the partial index webhook_deliveries_due only when it is named.
  const result = await sql`
    update webhook_deliveries set next_attempt_at = ${now}
     where status = 'pending' and next_attempt_at > ${now} and account_id = ${accountId} and url = ${url}
       and attempts > 0`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Deliveries waiting for their next attempt, counting at most `cap` rows (the partial index of
 * pending deliveries is walked, never the whole table), and how long the most overdue one has
 * been due at `now` (ms, 0 when none is): the webhook gauges of /metrics.
 */
export async function deliveryBacklog(
  db: Db,
  cap: number,
  now: number,
): Promise<{ pending: number; overdueMs: number }> {
  const pending = await sql<{ n: number }>`
    select count(*) as n
      from (select id from webhook_deliveries where status = 'pending' limit ${cap}) d`.execute(db);
  const due = await db
    .selectFrom("webhook_deliveries")
    .select("next_attempt_at")
    .where("status", "=", "pending")
    .orderBy("next_attempt_at")
    .limit(1)
    .executeTakeFirst();
  return {
    pending: Number(pending.rows[0]?.n ?? 0),
    overdueMs: due ? Math.max(0, now - Number(due.next_attempt_at)) : 0,
  };
}
