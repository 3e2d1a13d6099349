// What the alerts (delivery/alerts) read and write of the webhook tables: the endpoints failing
// now, and an operator alert queued as a delivery of the operator's account, so it is signed with
// that account's secret and retried by the sender like every webhook.
import { sql } from "kysely";
import type { Db, Store } from "../../base/store/store.js";
import { delivery } from "./delivery-rows.js";
import { type LowBalance, lowBalancePayload } from "./events.js";
import { WEBHOOKS_QUEUED } from "./outbox.js";

/** An account's endpoint with deliveries in retry after a failed attempt. */
export interface FailingEndpoint {
  account_id: number;
  url: string;
  /** When its oldest delivery in retry was written (it has failed since about then). */
  since: number;
  deliveries: number;
  last_error: string | null;
}

/**
 * Endpoints whose deliveries are being retried after failing (pending or in flight, with an
 * error): an endpoint answering again delivers them and drops out. Operator alerts are left out,
 * so an alert URL that fails does not raise an alert about itself.
 */
export async function failingEndpoints(db: Db): Promise<FailingEndpoint[]> {
  const rows = await db
    .selectFrom("webhook_deliveries")
    .select((eb) => [
      "account_id",
      "url",
      eb.fn.min("created_at").as("since"),
      eb.fn.countAll().as("deliveries"),
      eb.fn.max("last_error").as("last_error"),
    ])
    .where("status", "in", [sql.lit("pending" as const), sql.lit("delivering" as const)])
    .where("last_error", "is not", null)
    .where("event", "!=", sql.lit("alert" as const))
    .groupBy(["account_id", "url"])
    .execute();
  return rows.map((row) => ({
    account_id: Number(row.account_id),
    url: row.url,
    since: Number(row.since),
    deliveries: Number(row.deliveries),
    last_error: row.last_error ?? null,
  }));
}

/** An operator alert for the operator's alert URL, inside the transaction that raised or cleared it. */
export async function queueOperatorAlert(
  store: Store,
  trx: Db,
  alert: { operatorAccountId: number; url: string; orderKey: string; now: number; payload: Record<string, unknown> },
): Promise<void> {
  const row = delivery(alert.operatorAccountId, "alert", alert.orderKey, alert.url, alert.now, alert.payload);
  await store.insertMany(trx, "webhook_deliveries", [row]);
}

/**
 * The account's low_balance event, to its own low_balance URL when it set one (opt-in); answers
 * whether one was queued.
 */
export async function queueLowBalance(store: Store, trx: Db, accountId: number, event: LowBalance): Promise<boolean> {
  const endpoint = await trx
    .selectFrom("webhook_endpoints")
    .select("url")
    .where("account_id", "=", accountId)
    .where("event", "=", "low_balance")
    .executeTakeFirst();
  if (!endpoint) return false;
  const row = delivery(accountId, "low_balance", `low_balance:${accountId}`, endpoint.url, event.at, {
    ...lowBalancePayload(event),
  });
  await store.insertMany(trx, "webhook_deliveries", [row]);
  return true;
}

/** Wakes the webhook senders of every process after alerts were queued (after the commit). */
export function wakeWebhookSenders(store: Store): Promise<void> {
  return store.signals.notify(WEBHOOKS_QUEUED);
}
