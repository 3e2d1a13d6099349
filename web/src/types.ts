// The shapes of the API answers the console reads (docs/api.md).

export type Channel = "sms" | "voice" | "email" | "whatsapp";
export const CHANNELS: Channel[] = ["sms", "whatsapp", "email", "voice"];
export const WALLETS = ["sms", "international", "whatsapp", "email", "voice"] as const;

export interface Balance {
  balance: number;
  currency: string;
  last_updated: string;
  wallets: Record<(typeof WALLETS)[number], number>;
}

export interface DeliveryReport {
  message_id: string;
  broadcast_id: string;
  mobile: string;
  status: string;
  delivery_time: string | null;
  sent_time: string | null;
  sender_id: string;
  credit: number;
  route: string;
  segments: number;
  encoding: string;
  vendor_message_id: string | null;
  created_at: string;
  channel: Channel;
  message: string;
  scheduled_at?: string;
  error?: { code: string; message: string };
}

export interface TrafficCounts {
  sent: number;
  delivered: number;
  failed: number;
}

export interface MessageSummary {
  time_zone: string;
  today_from: string;
  week_from: string;
  channels: Record<Channel, { today: TrafficCounts; last_7_days: TrafficCounts }>;
}

export interface PerMinute {
  from: string;
  to: string;
  minutes: { at: string; sent: number; delivered: number; failed: number }[];
}

export interface TimelineEvent {
  at: string;
  event: string;
  detail: string | null;
}

export interface WebhookAttempt {
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  at: string;
}

export interface WebhookDelivery {
  id: number;
  webhook_id: string;
  event: string;
  url: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  done_at: string | null;
  last_status: number | null;
  last_error: string | null;
  redelivery_of: number | null;
  payload: Record<string, unknown>;
  attempts_log: WebhookAttempt[];
}

export interface MessageDetail {
  message: DeliveryReport;
  cost: { credits: number; wallet: string; refunded: boolean };
  carrier: { connector: string | null; vendor_message_id: string | null };
  parts: {
    part: number;
    status: string;
    vendor_message_id: string;
    error_code: string | null;
    done_at: string | null;
  }[];
  timeline: TimelineEvent[];
  webhooks: WebhookDelivery[];
}

export interface Template {
  id: number;
  name: string;
  content: string;
  dlt_template_id: string | null;
  entity_id: string | null;
  sender_id: string | null;
  status: string;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface SenderId {
  sender_id: string;
  status: string;
  created_at: string;
}

export interface ContactGroup {
  id: number;
  name: string;
  description: string | null;
  contacts: number;
  created_at: string;
  updated_at: string;
}

export interface Contact {
  id: number;
  number: string;
  name: string | null;
  created_at: string;
}

export interface ContactUpload {
  group_id: number;
  received: number;
  added: number;
  duplicates: number;
  invalid: number;
  duplicate_entries: { line?: number; index?: number; number: string }[];
  invalid_entries: { line?: number; index?: number; value: string; reason: string }[];
}

export interface BulkJob {
  id: number;
  batch_id: string;
  status: "queued" | "processing" | "completed";
  route: string;
  sender_id: string;
  group_id: number | null;
  total: number;
  rejected: number;
  credits: number;
  scheduled_at: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export interface DeliverySummary {
  total: number;
  delivered: number;
  failed: number;
  cancelled: number;
  pending: number;
}

export interface Keyword {
  id: number;
  key: string;
  response_type: "static" | "none";
  static_message: string | null;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface InboundMessage {
  id: number;
  from: string;
  to: string;
  message: string;
  received_at: string;
  keyword_id: number | null;
  keyword: string | null;
  reply_message_id: string | null;
}

export interface SenderIdRequest {
  id: number;
  sender_id: string;
  status: string;
  note: string | null;
  created_at: string;
}

/** A ledger entry as the account sees it (GET /api/v2/credits' recent_credits). */
export interface CreditEntry {
  id: number;
  wallet: string;
  amount: number;
  kind: string;
  note: string | null;
  created_at: string;
  balance_after: number;
}

export interface CreditsDetail {
  balance: number;
  international_credit: number;
  today_used: number;
  month_used: number;
  flood_current: number;
  flood_limit: number;
  recent_credits: CreditEntry[];
  wallets: Record<string, number>;
}
