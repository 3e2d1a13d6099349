// The webhook_deliveries row of a new event (or a redelivery), ready for the sender's first attempt.
import { monotonicFactory } from "ulid";
import type { NewWebhookDelivery, WebhookEvent } from "../../base/store/schema.js";

const ulid = monotonicFactory();

export function newWebhookId(now: number): string {
  return `msg_${ulid(now)}`;
}

const TEST_PREFIX = "msg_test_";

/** A test event's webhook-id: its prefix is what tells a receiver the event is a sample. */
export function newTestWebhookId(now: number): string {
  return `${TEST_PREFIX}${ulid(now)}`;
}

/** A redelivery's webhook-id: a new one, still marked as a test's when it repeats a test event. */
export function redeliveryWebhookId(original: string, now: number): string {
  return original.startsWith(TEST_PREFIX) ? newTestWebhookId(now) : newWebhookId(now);
}

export function delivery(
  accountId: number,
  event: WebhookEvent,
  orderKey: string,
  url: string,
  now: number,
  payload: Record<string, unknown>,
): NewWebhookDelivery {
  return queuedDelivery(
    { account_id: accountId, event, order_key: orderKey, payload: JSON.stringify(payload), redelivery_of: null },
    url,
    newWebhookId(now),
    now,
  );
}

/** A delivery row ready for the sender's first attempt (a new event, or a redelivery of one). */
export function queuedDelivery(
  source: Pick<NewWebhookDelivery, "account_id" | "event" | "order_key" | "payload"> & { redelivery_of: number | null },
  url: string,
  webhookId: string,
  now: number,
): NewWebhookDelivery {
  return {
    account_id: source.account_id,
    event: source.event,
    order_key: source.order_key,
    webhook_id: webhookId,
    url,
    payload: source.payload,
    status: "pending",
    attempts: 0,
    next_attempt_at: now,
    lease_until: null,
    last_status: null,
    last_error: null,
    redelivery_of: source.redelivery_of,
    created_at: now,
    done_at: null,
  };
}
