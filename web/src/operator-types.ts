// The shapes of the operator API's answers the console reads (docs/api.md, "Operator API").
import type { PageMeta } from "./api.js";
import type { CreditEntry } from "./types.js";

export const ROUTE_CODES = ["T", "P", "PS", "I"] as const;
export const ACCOUNT_WALLETS = ["sms", "international", "whatsapp", "email", "voice"] as const;

export interface OperatorAccount {
  id: number;
  username: string;
  role: "customer" | "operator";
  status: "active" | "inactive" | "blocked";
  time_zone: string;
  flood_limit: number;
  get_api_enabled: boolean;
  international_enabled: boolean;
  dlt_scrubbing: boolean;
  promo_sender_enabled: boolean;
  routes: string[];
  default_dlt_entity_id: string | null;
  locked_until: string | null;
  created_at: string;
  balances: Record<string, number>;
}

export interface MissingRegistration {
  what: string;
  message: string;
  command: string;
  api: string;
}

export interface OperatorAccountDetail extends OperatorAccount {
  registrations: {
    sender_ids: { id: number; sender_id: string; status: string }[];
    dlt_headers: string[];
    dlt_entities: string[];
    dlt_entity_of_sends: string | null;
    templates: { approved: number; pending: number };
  };
  ready: boolean;
  missing: MissingRegistration[];
}

/** A ledger entry as the operator sees it: the account's view, and what it is for. */
export interface LedgerEntry extends CreditEntry {
  ref: string | null;
}

export const APPROVAL_KINDS = [
  "sender_id",
  "template",
  "keyword",
  "dlt_entity",
  "dlt_header",
  "email_domain",
  "voice_caller_id",
] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

export interface ApprovalItem {
  kind: ApprovalKind;
  id: number;
  account: string;
  value: string;
  detail: string | null;
  created_at: string;
}

export interface ApprovalQueue {
  data: ApprovalItem[];
  waiting: Record<ApprovalKind, number>;
  meta: PageMeta;
}

export interface WorkerHealth {
  worker: string;
  type?: string;
  state: string;
  reason?: string | null;
  sessions?: { total: number; bound: number; outstanding: number; queued: number } | null;
  results?: { ok: number; retryable: number; failed: number; deferred: number };
  last_error?: { code: string; message: string; at: string } | null;
  retry_at?: string | null;
  updated_at: string;
}

export interface ConnectorHealth {
  connector: string;
  state: "up" | "degraded" | "down" | "unknown";
  workers: WorkerHealth[];
}

export interface Carrier {
  name: string;
  type: string;
  enabled: boolean;
  source: string;
  definition: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  health: { state: ConnectorHealth["state"]; workers: WorkerHealth[] };
}

export interface CarrierRoute {
  id: number;
  route: string;
  prefix: string;
  connectors: { name: string; weight: number }[];
}

export interface SystemView {
  at: string;
  counted_up_to: number;
  /** `held`: of `queued`, those waiting because no connector of their route is up. */
  queues: { channel: string; lane: number; queued: number; held: number }[];
  webhooks: { pending: number; overdue_seconds: number };
  connectors: ConnectorHealth[];
  processes: { role: string; host: string; pid: number; version: string; started_at: string; last_beat_at: string }[];
}
