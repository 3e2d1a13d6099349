// What an account's change of a webhook URL does to its deliveries still open: they follow the URL
// (audit-ops finding 6). A delivery is the event, not the endpoint it was written for: one
// retrying an endpoint the account has since fixed would otherwise keep failing there for up to
// 24 hours, with the message's later events waiting behind it (one message's events go in order).
import { sql } from "kysely";
import type { WebhookEvent } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";

/** Why a delivery to a URL the account removed is given up (its last_error). */
export const URL_REMOVED = "The account removed its webhook URL for this event; the delivery was given up.";

/**
 * In the transaction that sets or removes the account's URL for `event`. With a new URL, the
 * deliveries still open go there at their next attempt: a pending one at once (its back-off was
 * the old endpoint's), one being sent when its attempt ends (that attempt's row keeps the URL it
 * used, recordOutcomes). With none, the pending ones are given up with URL_REMOVED; one being
 * sent is given up when its attempt fails (givenUpForRemovedUrls).
 */
export async function followEndpointChange(
  trx: Db,
  accountId: number,
  event: WebhookEvent,
  url: string | null,
  now: number,
): Promise<void> {
  // Literal statuses: SQLite uses the partial indexes of pending and delivering rows only when
  // they are named, and an account's whole history is not read.
  if (url === null) {
    await sql`
      update webhook_deliveries
         set status = 'failed', done_at = ${now}, last_error = ${URL_REMOVED}, lease_until = null
       where status = 'pending' and account_id = ${accountId} and event = ${event}`.execute(trx);
    return;
  }
  await sql`
    update webhook_deliveries
       set url = ${url}, next_attempt_at = case when next_attempt_at > ${now} then cast(${now} as bigint) else next_attempt_at end
     where status = 'pending' and account_id = ${accountId} and event = ${event} and url <> ${url}`.execute(trx);
  await sql`
    update webhook_deliveries set url = ${url}
     where status = 'delivering' and account_id = ${accountId} and event = ${event} and url <> ${url}`.execute(trx);
}

/**
 * Of deliveries just put back to pending after a failed attempt (`ids`), gives up those of an
 * account-level event whose URL the account removed while the attempt was under way.
 */
export async function givenUpForRemovedUrls(trx: Db, ids: readonly number[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    update webhook_deliveries
       set status = 'failed', done_at = ${now}, last_error = ${URL_REMOVED}
     where id in (${sql.join([...ids])}) and status = 'pending' and event not in ('email', 'alert')
       and not exists (select 1 from webhook_endpoints e
                        where e.account_id = webhook_deliveries.account_id and e.event = webhook_deliveries.event)`.execute(
    trx,
  );
}
