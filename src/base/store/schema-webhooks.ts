// The tables of webhooks/: endpoints, signing secrets and the outbox of deliveries, as Kysely
// sees them; `Database` (schema.ts) extends this.
import type { Generated } from "kysely";

/**
 * `email`: a notification to a send's notifyurl (not an account-level URL); `low_balance`: the
 * account's wallet fell below its alert threshold; `alert`: an operator alert to the operator's
 * alert URL (delivery/alerts, not an account-level URL either).
 */
export type WebhookEvent =
  | "delivery_report"
  | "inbound_sms"
  | "inbound_whatsapp"
  | "low_balance"
  | "verification_approved"
  | "verification_denied"
  | "verification_expired"
  | "chain_completed"
  | "link_clicked"
  | "email"
  | "alert";

export type WebhookDeliveryStatus = "pending" | "delivering" | "delivered" | "failed";

export interface WebhookEndpointsTable {
  account_id: number;
  event: WebhookEvent;
  url: string;
  created_at: number;
  updated_at: number;
}

export interface WebhookSecretsTable {
  id: Generated<number>;
  account_id: number;
  /** `whsec_` + base64, as Standard Webhooks writes it. */
  secret: string;
  created_at: number;
  /** Null for the current secret; a rotated-out one keeps signing until this time. */
  expires_at: number | null;
}

/** The outbox: one row per event per URL, written with the state change it reports. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  account_id: number;
  event: WebhookEvent;
  /** Deliveries with the same key go out in id order (one message's events). */
  order_key: string;
  /** The `webhook-id` header: the same on every attempt, so receivers can deduplicate. */
  webhook_id: string;
  url: string;
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  last_status: number | null;
  last_error: string | null;
  redelivery_of: number | null;
  created_at: number;
  done_at: number | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  at: number;
  /** Where this attempt posted (its delivery follows the account's URL); null before migration 0057: the delivery's url. */
  url: string | null;
}

export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
