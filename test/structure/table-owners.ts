// Which folder of src/ owns each table, and the files that still name a table of another folder
// (docs/ARCHITECTURE.md, "Layers"). A table is owned by the folder whose code creates and writes
// its rows: only that folder's files name it in SQL, and every other folder reaches the table
// through the owner's exported functions (handed in from app/ when the owner sits in a higher tier).
// src/store/migrations/ creates every table and is exempt.

/** Table -> the top-level folder of src/ that owns it. Every table of store/schema*.ts has one. */
export const TABLE_OWNERS: Readonly<Record<string, string>> = {
  // auth/: who is calling
  api_keys: "auth",
  console_sessions: "auth",
  login_failures: "auth",
  // accounts/: account holders and their money
  accounts: "accounts",
  wallets: "accounts",
  ledger_entries: "accounts",
  sender_ids: "accounts",
  templates: "accounts",
  dlt_entities: "accounts",
  dlt_headers: "accounts",
  dnd_numbers: "accounts",
  // messages/: messages of every channel, their jobs, keys and counters
  messages: "messages",
  early_reports: "messages",
  bulk_jobs: "messages",
  bulk_parts: "messages",
  idempotency_keys: "messages",
  flood_counters: "messages",
  sequences: "messages",
  // webhooks/
  webhook_endpoints: "webhooks",
  webhook_secrets: "webhooks",
  webhook_deliveries: "webhooks",
  webhook_attempts: "webhooks",
  // contacts/
  contact_groups: "contacts",
  contacts: "contacts",
  // the channels
  voice_caller_ids: "voice",
  email_domains: "email",
  email_templates: "email",
  email_contents: "email",
  email_attachments: "email",
  email_events: "email",
  email_captured: "email",
  whatsapp_accounts: "whatsapp",
  whatsapp_templates: "whatsapp",
  whatsapp_sessions: "whatsapp",
  whatsapp_inbound: "whatsapp",
  inbound_numbers: "inbound",
  inbound_messages: "inbound",
  keywords: "inbound",
  suppressions: "inbound",
  // carriers/ and the SMPP server
  carriers: "carriers",
  sms_routes: "carriers",
  connector_health: "carriers",
  message_parts: "carriers",
  smpp_accounts: "smpp-server",
  smpp_binds: "smpp-server",
  smpp_outbox: "smpp-server",
  // app/: each process's heartbeat
  process_heartbeats: "app",
};

/**
 * Tables no folder owns as a whole: `settings` is a key-value table in which each folder keeps its
 * own keys (auth's `auth_epoch`, email's tracking secret, carriers' catalogue version).
 */
export const SHARED_TABLES: readonly string[] = ["settings"];

/**
 * Files outside a table's owner that name it today, as `file -> table`, each with why it stands. The
 * test fails on a reference not listed here and on an entry that no longer occurs, so this list
 * only shrinks.
 */
export const TABLE_ALLOWED: Readonly<Record<string, string>> = {
  "src/auth/login-locks.ts -> accounts":
    "failed_logins, locked_until and address_locks_until are auth's login state, kept on the account's row so that a login reads one row (accounts/ accountCredentials): once the account is created only this file writes them (accounts/' unlock calls unlockLogins), beside login_failures in the statements of one failed login; the operator lists and clears locks by username",
  "src/email/notify-targets.ts -> messages":
    "an email's notification needs its message's fields (account, recipient, broadcast, error) and its send's notify_url and callback_data, reached only through messages.content_id: one join, read in every transaction that reports emails (the dispatcher's submits, receipts, expiry, bounces) and on each open and click, where the owners' two statements would be two round trips",
};
