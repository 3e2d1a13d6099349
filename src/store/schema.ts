// The table shapes, as Kysely sees them. Times are epoch milliseconds (UTC); credits are
// integer milli-credits (see core/credits.ts); booleans are 0/1 on both engines.
import type { Generated, Insertable, Kysely, Selectable } from "kysely";
import type { VoiceTables } from "./schema-voice.js";

export type AccountRole = "customer" | "operator";
export type AccountStatus = "active" | "inactive" | "blocked";

export interface AccountsTable {
  id: Generated<number>;
  username: string;
  password_hash: string;
  role: AccountRole;
  status: AccountStatus;
  time_zone: string;
  flood_limit: number;
  get_api_enabled: number;
  international_enabled: number;
  /** Failed logins in a row from any address; reset by a success. */
  failed_logins: number;
  /** The whole account is locked (failures from many addresses); see auth/login-locks.ts. */
  locked_until: number | null;
  /** The latest lock of one of its source addresses (login_failures); null when none was ever set. */
  address_locks_until: Generated<number | null>;
  /** Transactional content must match an approved template (operator switch, on by default). */
  dlt_scrubbing: Generated<number>;
  promo_sender_enabled: Generated<number>;
  /** Route codes the account may use, comma-separated: T, P, PS, I. */
  routes: Generated<string>;
  /** The white-listed DLT entity a send naming none carries, when the account has several. */
  default_dlt_entity_id: Generated<string | null>;
  created_at: number;
  updated_at: number;
}

/** Failed logins of one account from one source address, and that address's lock. */
export interface LoginFailuresTable {
  account_id: number;
  address: string;
  /** Failures in a row from this address since its last success or lock. */
  failures: number;
  locked_until: number | null;
  updated_at: number;
}

export interface WalletsTable {
  account_id: number;
  wallet: string;
  balance: number;
  /** Milli-credits held for sends waiting on a synchronous upstream (WhatsApp); spendable = balance - held. */
  held: Generated<number>;
}

export type LedgerKind = "topup" | "debit" | "refund" | "transfer_in" | "transfer_out" | "adjustment";

export interface LedgerEntriesTable {
  id: Generated<number>;
  account_id: number;
  wallet: string;
  /** Signed milli-credits: debits are negative. */
  amount: number;
  balance_after: number;
  kind: LedgerKind;
  /** What the entry is for (a message id, a transfer id); unique per account+kind so nothing is charged twice. */
  ref: string | null;
  note: string | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  /** First characters of the key, shown in listings so a person can tell keys apart. */
  prefix: string;
  key_hash: string;
  name: string | null;
  /** Requests per minute; 0 means unlimited. */
  rate_limit: number;
  created_at: number;
  revoked_at: number | null;
}

export type ApprovalStatus = "pending" | "approved" | "rejected";

export interface SenderIdsTable {
  id: Generated<number>;
  account_id: number;
  sender: string;
  status: ApprovalStatus;
  note: string | null;
  created_at: number;
  updated_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
}

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

export interface TemplatesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  content: string;
  dlt_template_id: string | null;
  entity_id: string | null;
  sender: string | null;
  status: ApprovalStatus;
  notes: string | null;
  created_at: number;
  updated_at: number;
}

export interface DltEntitiesTable {
  id: Generated<number>;
  account_id: number;
  entity_id: string;
  status: ApprovalStatus;
  created_at: number;
}

export interface DltHeadersTable {
  id: Generated<number>;
  account_id: number;
  header: string;
  status: ApprovalStatus;
  created_at: number;
}

export interface DndNumbersTable {
  /** The 10-digit Indian mobile number as an integer. */
  number: number;
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
  dlt_entity_id: string | null;
  dlt_template_id: string | null;
  template_id: number | null;
  due_at: number;
  created_at: number;
}

export interface ContactGroupsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
}

export interface ContactsTable {
  id: Generated<number>;
  group_id: number;
  /** Normalised 10-digit Indian mobile number. */
  number: string;
  name: string | null;
  created_at: number;
}

export interface InboundNumbersTable {
  id: Generated<number>;
  account_id: number;
  /** The virtual number as the carrier delivers it (digits). */
  number: string;
  created_at: number;
}

export interface KeywordsTable {
  id: Generated<number>;
  account_id: number;
  /** Stored upper-case; matched against the first word of an inbound message. */
  key: string;
  response_type: string;
  static_message: string | null;
  status: ApprovalStatus;
  created_at: number;
  updated_at: number;
}

export interface InboundMessagesTable {
  id: Generated<number>;
  account_id: number;
  /** The virtual number it arrived on. */
  number: string;
  /** Who sent it. */
  sender: string;
  body: string;
  keyword_id: number | null;
  connector: string | null;
  upstream_id: string | null;
  /** The static keyword reply sent back, if any. */
  reply_message_id: string | null;
  received_at: number;
}

export interface SuppressionsTable {
  account_id: number;
  number: string;
  /** What put it there, e.g. "inbound STOP". */
  reason: string;
  created_at: number;
}

/** `email`: a notification to a send's notifyurl (not an account-level URL). */
export type WebhookEvent = "delivery_report" | "inbound_sms" | "inbound_whatsapp" | "email";
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
}

export interface WhatsAppAccountsTable {
  account_id: number;
  enabled: number;
  /** Null: the gateway's default connector. */
  connector: string | null;
  phone_number_id: string | null;
  display_phone_number: string | null;
  waba_id: string | null;
  access_token: string | null;
  sandbox: number;
  /** JSON array of digits-with-country-code numbers. */
  test_numbers: string;
  templates_synced_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface WhatsAppTemplatesTable {
  id: Generated<number>;
  account_id: number;
  upstream_id: string | null;
  name: string;
  language: string;
  category: string;
  status: string;
  body: string;
  param_count: number;
  header_format: string;
  header_param_count: number;
  /** Meta's components (JSON). */
  components: string;
  reason: string | null;
  test_only: number;
  synced_at: number;
}

export interface WhatsAppSessionsTable {
  account_id: number;
  wa_id: string;
  last_inbound_at: number;
}

export interface WhatsAppInboundTable {
  id: Generated<number>;
  account_id: number;
  upstream_id: string;
  from_number: string;
  to_number: string;
  type: string;
  text: string | null;
  media_id: string | null;
  received_at: number;
  created_at: number;
}

export interface EmailDomainsTable {
  id: Generated<number>;
  account_id: number;
  /** Lower case. */
  domain: string;
  status: ApprovalStatus;
  dkim_selector: string;
  /** PEM (PKCS#8). */
  dkim_private_key: string;
  /** PEM (SPKI); its base64 body is the DNS TXT record's p= value. */
  dkim_public_key: string;
  created_at: number;
  updated_at: number;
}

export interface EmailTemplatesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  subject: string;
  html: string;
  text: string | null;
  created_at: number;
  updated_at: number;
}

export interface EmailContentsTable {
  id: Generated<number>;
  account_id: number;
  broadcast_id: string;
  from_address: string;
  from_name: string | null;
  subject: string;
  html: string;
  text: string | null;
  reply_to: string | null;
  /** JSON arrays of addresses: the visible To and Cc headers. */
  to_list: string;
  cc_list: string;
  track_opens: number;
  track_clicks: number;
  notify_url: string | null;
  callback_data: string | null;
  created_at: number;
}

export interface EmailAttachmentsTable {
  id: Generated<number>;
  content_id: number;
  filename: string;
  content_type: string;
  size: number;
  data: Buffer;
}

export type EmailEventKind = "opened" | "clicked" | "bounced";

export interface EmailEventsTable {
  id: Generated<number>;
  message_id: string;
  account_id: number;
  kind: EmailEventKind;
  /** The clicked URL, or the bounce's diagnostic. */
  detail: string | null;
  at: number;
}

export interface EmailCapturedTable {
  id: Generated<number>;
  message_id: string;
  account_id: number;
  envelope_from: string;
  recipient: string;
  subject: string;
  /** The whole message as it would have gone to a relay (RFC 5322). */
  raw: string;
  created_at: number;
}

export type MessagePartStatus = "pending" | "delivered" | "failed";

/** One part of a carrier message (an SMPP submit_sm): its id at the carrier and its receipt. */
export interface MessagePartsTable {
  message_id: string;
  part_index: number;
  connector: string;
  upstream_id: string;
  status: MessagePartStatus;
  /** The receipt's stat (and err) when the part failed. */
  error_code: string | null;
  done_at: number | null;
  created_at: number;
}

/** An SMS connector an operator configured (issue 10). */
export interface CarriersTable {
  name: string;
  type: "smpp" | "http-sms";
  /** The definition as JSON. */
  config: string;
  enabled: Generated<number>;
  source: "api" | "file";
  created_at: number;
  updated_at: number;
}

/** Which connectors carry the SMS of a route code and number prefix. */
export interface SmsRoutesTable {
  id: Generated<number>;
  route: string;
  prefix: string;
  /** JSON [{ name, weight }] in failover order. */
  connectors: string;
  created_at: number;
}

/** A console sign-in (auth/sessions.ts). */
export interface ConsoleSessionsTable {
  id: Generated<number>;
  /** SHA-256 of the cookie's token. */
  token_hash: string;
  account_id: number;
  /** Sent back by the console in X-CSRF-Token on every state-changing request. */
  csrf_token: string;
  /** SHA-256 of the account's password hash at sign-in: a password change ends the session. */
  credential_stamp: string;
  address: string;
  user_agent: string | null;
  created_at: number;
  last_seen_at: number;
  /** The latest the session may last, whatever its use. */
  expires_at: number;
}

/** An account's SMPP server credentials and limits (smpp-server/); no row: it cannot bind. */
export interface SmppAccountsTable {
  account_id: number;
  /** argon2 hash of the SMPP password (at most 8 characters, as SMPP 3.4 allows). */
  password_hash: string;
  /** Binds of the account open at once (every kind counts); 0 = no limit. */
  max_binds: number;
  /** submit_sm, data_sm and submit_multi per second over all its binds; 0 = no limit. */
  submits_per_second: number;
  /** Comma-separated addresses and CIDR ranges a bind may come from; null = anywhere. */
  allowed_ips: string | null;
  created_at: number;
  updated_at: number;
}

/** A deliver_sm owed to an account's receiver binds: a delivery receipt or an MO message. */
export interface SmppOutboxTable {
  id: Generated<number>;
  account_id: number;
  kind: "receipt" | "mo";
  /** The message a receipt is about. */
  message_id: string | null;
  /** JSON: what the deliver_sm carries (smpp-server/outbox.ts). */
  payload: string;
  /** A bind of some process is sending it until then. */
  lease_until: number | null;
  attempts: number;
  created_at: number;
  /** The client refused it or did not answer: tried again then, and nothing after it goes first. */
  retry_at: number | null;
}

/** A bound SMPP client, as the process holding it reports it every few seconds (smpp-server/registry.ts). */
export interface SmppBindsTable {
  id: string;
  process_id: string;
  host: string;
  pid: number;
  account_id: number;
  mode: "transmitter" | "receiver" | "transceiver";
  /** The client's IP address and port. */
  address: string;
  port: number;
  tls: number;
  bound_at: number;
  submits: number;
  /** submit_sm, data_sm and submit_multi per second over the last report's interval. */
  submit_rate: number;
  /** The holding process's last report; a row not seen for a while is of a process gone. */
  seen_at: number;
  /** An operator asked for the bind to be closed; the holding process unbinds it. */
  disconnect_requested_at: number | null;
}

/** A worker's last look at one connector. */
export interface ConnectorHealthTable {
  connector: string;
  worker: string;
  state: "up" | "degraded" | "down";
  detail: string;
  updated_at: number;
}

export interface ProcessHeartbeatsTable {
  id: string;
  role: string;
  host: string;
  pid: number;
  version: string;
  url: string;
  started_at: number;
  beat_local: number;
  beat_db: number;
}

export interface Database extends VoiceTables {
  accounts: AccountsTable;
  login_failures: LoginFailuresTable;
  console_sessions: ConsoleSessionsTable;
  smpp_accounts: SmppAccountsTable;
  smpp_outbox: SmppOutboxTable;
  smpp_binds: SmppBindsTable;
  wallets: WalletsTable;
  ledger_entries: LedgerEntriesTable;
  api_keys: ApiKeysTable;
  sender_ids: SenderIdsTable;
  settings: SettingsTable;
  messages: MessagesTable;
  idempotency_keys: IdempotencyKeysTable;
  sequences: SequencesTable;
  templates: TemplatesTable;
  dlt_entities: DltEntitiesTable;
  dlt_headers: DltHeadersTable;
  dnd_numbers: DndNumbersTable;
  flood_counters: FloodCountersTable;
  bulk_jobs: BulkJobsTable;
  bulk_parts: BulkPartsTable;
  contact_groups: ContactGroupsTable;
  contacts: ContactsTable;
  inbound_numbers: InboundNumbersTable;
  keywords: KeywordsTable;
  inbound_messages: InboundMessagesTable;
  suppressions: SuppressionsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  whatsapp_accounts: WhatsAppAccountsTable;
  whatsapp_templates: WhatsAppTemplatesTable;
  whatsapp_sessions: WhatsAppSessionsTable;
  whatsapp_inbound: WhatsAppInboundTable;
  email_domains: EmailDomainsTable;
  email_templates: EmailTemplatesTable;
  email_contents: EmailContentsTable;
  email_attachments: EmailAttachmentsTable;
  email_events: EmailEventsTable;
  email_captured: EmailCapturedTable;
  message_parts: MessagePartsTable;
  carriers: CarriersTable;
  sms_routes: SmsRoutesTable;
  connector_health: ConnectorHealthTable;
  process_heartbeats: ProcessHeartbeatsTable;
}

export type Account = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type LedgerEntry = Selectable<LedgerEntriesTable>;
export type SenderIdRow = Selectable<SenderIdsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type NewMessage = Insertable<MessagesTable>;
export type TemplateRow = Selectable<TemplatesTable>;
export type BulkJobRow = Selectable<BulkJobsTable>;
export type ContactGroupRow = Selectable<ContactGroupsTable>;
export type KeywordRow = Selectable<KeywordsTable>;
export type InboundMessageRow = Selectable<InboundMessagesTable>;
export type BulkPartRow = Selectable<BulkPartsTable>;
export type NewBulkPart = Insertable<BulkPartsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewWebhookDelivery = Insertable<WebhookDeliveriesTable>;

/** The database as Kysely sees it (a transaction is one too). */
export type Db = Kysely<Database>;
