// The tables of contacts/, inbound/, whatsapp/ and email/, as Kysely sees them; `Database`
// (schema.ts) extends this. Voice's are in schema-voice.ts.
import type { Generated } from "kysely";
import type { ApprovalStatus } from "./schema-accounts.js";

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
  /** The operator's reason when rejecting it, shown to the account; null otherwise (0059). */
  rejection_reason: Generated<string | null>;
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

/** Meta's status for a wamid no message carried yet when it came, kept until one does (0077). */
export interface WhatsAppEarlyStatusesTable {
  upstream_id: string;
  status: "delivered" | "read" | "failed";
  at: number;
  /** Meta's errors of a failed status, as JSON; null otherwise. */
  errors: string | null;
  received_at: number;
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
  /** The operator's reason when rejecting it, shown to the account; null otherwise (0059). */
  rejection_reason: Generated<string | null>;
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
  /** 1: the messages carry List-Unsubscribe and the send leaves out suppressed addresses; 0: transactional. */
  list_unsubscribe: Generated<number>;
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

export type EmailEventKind = "opened" | "clicked" | "bounced" | "unsubscribed";

export interface EmailEventsTable {
  id: Generated<number>;
  message_id: string;
  account_id: number;
  kind: EmailEventKind;
  /** The clicked URL, or the bounce's diagnostic. */
  detail: string | null;
  at: number;
}

/** An account's email suppression list: addresses (lower case) its list mail leaves out. */
export interface EmailSuppressionsTable {
  account_id: number;
  address: string;
  /** What put it there: "list-unsubscribe" (the recipient's one-click unsubscribe). */
  reason: string;
  /** The message whose unsubscribe link did it. */
  message_id: string | null;
  created_at: number;
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

export interface ChannelsTables {
  contact_groups: ContactGroupsTable;
  contacts: ContactsTable;
  inbound_numbers: InboundNumbersTable;
  keywords: KeywordsTable;
  inbound_messages: InboundMessagesTable;
  suppressions: SuppressionsTable;
  whatsapp_accounts: WhatsAppAccountsTable;
  whatsapp_templates: WhatsAppTemplatesTable;
  whatsapp_sessions: WhatsAppSessionsTable;
  whatsapp_inbound: WhatsAppInboundTable;
  whatsapp_early_statuses: WhatsAppEarlyStatusesTable;
  email_domains: EmailDomainsTable;
  email_templates: EmailTemplatesTable;
  email_contents: EmailContentsTable;
  email_attachments: EmailAttachmentsTable;
  email_events: EmailEventsTable;
  email_captured: EmailCapturedTable;
  email_suppressions: EmailSuppressionsTable;
}
