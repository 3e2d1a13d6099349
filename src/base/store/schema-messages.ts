// The tables of messages/: messages of every channel, their bulk jobs, keys and counters, as
// Kysely sees them; `Database` (schema.ts) extends this.
import type { Generated } from "kysely";

export type MessageStatus =
  | "scheduled"
  | "queued"
  | "dispatching"
  | "submitted"
  | "delivered"
  | "failed"
  | "cancelled"
  // WhatsApp: `sending` while the synchronous upstream call is in flight, then sent → delivered → read.
  | "sending"
  | "sent"
  | "read";

export interface MessagesTable {
  /** Queue id: `q` + ULID. */
  id: string;
  account_id: number;
  channel: string;
  broadcast_id: string;
  recipient: string;
  sender: string;
  body: string;
  encoding: string | null;
  segments: number;
  flash: number;
  /** transactional, promotional, promotional_sender, international, voice. */
  route: string;
  /** 0 is served before 1: transactional traffic never waits behind promotional. */
  lane: number;
  wallet: string;
  /** Milli-credits charged for this message. */
  credits: number;
  status: MessageStatus;
  /** When the message may be dispatched (schedule, or retry back-off). */
  due_at: number;
  /** While `dispatching`: until when the claiming worker owns it. */
  lease_until: number | null;
  attempts: number;
  connector: string | null;
  upstream_id: string | null;
  error_code: string | null;
  error_message: string | null;
  /** A carrier's failure code mapped to a reason of the error catalogue, and that code (both or neither). */
  error_reason: string | null;
  carrier_code: string | null;
  /** When its carrier's failure was refunded (REFUND_CARRIER_REASONS); null otherwise. */
  carrier_refunded_at: number | null;
  /** While held with `connectors_down`: since when (the hold is bounded from then). */
  held_since: number | null;
  dlt_entity_id: string | null;
  dlt_template_id: string | null;
  /** Channel-specific JSON. */
  meta: string | null;
  /** The approved template the content matched (DLT scrubbing). */
  template_id: number | null;
  /** The bulk job the message belongs to. */
  job_id: number | null;
  created_at: number;
  submitted_at: number | null;
  /** When the message reached delivered, failed or cancelled. */
  done_at: number | null;
  /** WhatsApp: when the upstream reported delivered / read (kept when reports arrive out of order). */
  delivered_at: number | null;
  read_at: number | null;
  /** Email: the email_contents row this recipient's message shares with the rest of its send. */
  content_id: Generated<number | null>;
  /** What each ancestor of a sub-account was charged for this message: "id:milli,…", parent first (0036). */
  upline: Generated<string | null>;
  /** Milli-credits the carrier charges for it, by its connector's cost card at submit (0037). */
  cost: Generated<number | null>;
  /** The cost card's prefix that priced it (`*`: the catch-all row). */
  cost_prefix: Generated<string | null>;
  /** Why the route chose its connector (least_cost and adaptive routes). */
  route_note: Generated<string | null>;
  /** An SMS's DLT telemarketer chain as declared for its entity at acceptance, `PE,TM1,…,TMn` (0060). */
  dlt_tm_chain: Generated<string | null>;
  /** What DLT scrubbing did at acceptance: matched, unmatched, off or international (0060; null: not recorded). */
  dlt_scrub: Generated<string | null>;
  /**
   * The source address its carrier got when not its sender (PROMOTIONAL sent as PROMOTIONAL_HEADER),
   * written with the submit or the carrier's refusal (0075; null: its sender, or not recorded).
   */
  carrier_source: Generated<string | null>;
}

export interface IdempotencyKeysTable {
  account_id: number;
  key: string;
  request_hash: string;
  response: string;
  created_at: number;
}

export interface SequencesTable {
  name: string;
  value: number;
}

export interface FloodCountersTable {
  account_id: number;
  /** Account-local day, yyyymmdd. */
  day: string;
  count: number;
}

export type BulkJobStatus = "queued" | "processing" | "completed";

export interface BulkJobsTable {
  id: Generated<number>;
  account_id: number;
  /** Broadcast id shared by every message of the job. */
  batch_id: string;
  status: BulkJobStatus;
  route: string;
  sender: string;
  group_id: number | null;
  /** Messages accepted into the job. */
  total: number;
  /** Recipients refused one by one (invalid, DND, opted out). */
  rejected: number;
  delivered: number;
  failed: number;
  cancelled: number;
  /** Milli-credits charged for the job. */
  credits: number;
  scheduled_at: number | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  completed_at: number | null;
}

export type BulkPartStatus = "pending" | "done" | "cancelled";

/** One bulk call's recipients, fanned out into messages by the expander (see dispatch/bulk-expander.ts). */
export interface BulkPartsTable {
  id: Generated<number>;
  job_id: number;
  account_id: number;
  broadcast_id: string;
  status: BulkPartStatus;
  /** Normalised recipients, comma-separated, in the order they were accepted. */
  recipients: string;
  count: number;
  /** Recipients [0, next_index) are message rows already. */
  next_index: number;
  channel: string;
  sender: string;
  body: string;
  encoding: string | null;
  segments: number;
  flash: number;
  route: string;
  lane: number;
  wallet: string;
  /** Milli-credits per message. */
  credits: number;
  /** Per message, what each ancestor of a sub-account was charged: "id:milli,…" (0036). */
  upline: Generated<string | null>;
  dlt_entity_id: string | null;
  dlt_template_id: string | null;
  template_id: number | null;
  due_at: number;
  created_at: number;
  /** Where the body's links to shorten per recipient are: JSON ShortLinkPlan (0047), null for none. */
  short_links: Generated<string | null>;
  /** The messages' dlt_tm_chain and dlt_scrub (0060). */
  dlt_tm_chain: Generated<string | null>;
  dlt_scrub: Generated<string | null>;
}

/** A message's tracked short link: SHORT_LINK_BASE/<code> redirects to `url` until `expires_at` (0047). */
export interface ShortLinksTable {
  code: string;
  message_id: string;
  account_id: number;
  url: string;
  clicks: Generated<number>;
  created_at: number;
  expires_at: number;
}

/** One click of a short link; the address as an HMAC with the installation's secret (0047). */
export interface LinkClicksTable {
  id: Generated<number>;
  code: string;
  message_id: string;
  account_id: number;
  at: number;
  user_agent: string | null;
  address_hash: string;
}

/** A delivery report that matched no message yet, kept until one carries its id (0026). */
export interface EarlyReportsTable {
  connector: string;
  upstream_id: string;
  status: "delivered" | "failed";
  at: number;
  error_code: string | null;
  /** The carrier's own failure code, which the error_codes tables map (0076); null on a delivered report. */
  carrier_code: string | null;
  /** The carrier's own message, unclassified (0076). */
  error_message: string | null;
  received_at: number;
}

export interface MessagesTables {
  messages: MessagesTable;
  early_reports: EarlyReportsTable;
  idempotency_keys: IdempotencyKeysTable;
  sequences: SequencesTable;
  flood_counters: FloodCountersTable;
  bulk_jobs: BulkJobsTable;
  bulk_parts: BulkPartsTable;
  short_links: ShortLinksTable;
  link_clicks: LinkClicksTable;
  delivery_rollups: DeliveryRollupsTable;
  delivery_rollup_prefix: DeliveryRollupPrefixTable;
}

/**
 * Delivery analytics' rollups (migration 0035), written by the writers of messages (domain/messages/rollups.ts): per
 * span (q: 15 minutes, d: UTC day), dimension and value, an account's counts by accept time.
 * The latency histogram's columns h00..h35 are read by name (LATENCY_COLUMNS).
 */
export interface DeliveryRollupsTable {
  span: "q" | "d";
  /** "" (the account's total), connector, route, prefix or error_code. */
  dim: string;
  bucket: number;
  account_id: number;
  value: string;
  sent: number;
  delivered: number;
  failed: number;
  pending: number;
  /** Failed before any carrier carried them (migration 0064): not in sent or failed. */
  rejected: number;
}

/** How many leading digits a message's prefix keeps, for messages accepted from `since` on. */
export interface DeliveryRollupPrefixTable {
  since: number;
  digits: number;
}
