// The Verify API's tables (issue 41), as Kysely sees them; `Database` extends this.
import type { Generated } from "kysely";

export type VerificationStatus = "pending" | "approved" | "denied" | "expired" | "cancelled";

/** One verification: a code sent to a recipient, checked at most VERIFY_MAX_ATTEMPTS times. */
export interface VerificationsTable {
  /** `v` + ULID. */
  id: string;
  account_id: number;
  recipient: string;
  /** The channel of the last send (start or resend). */
  channel: string;
  /** Every channel a code went by, in order, comma-separated. */
  channels: string;
  status: VerificationStatus;
  /** HMAC-SHA256 of the code (hex) keyed by the installation's verify secret. */
  code_hash: string;
  /**
   * The code encrypted (AES-256-GCM, same secret) so that the dispatcher can put it in the text
   * it hands the carrier; erased when the verification is final (docs/decisions/0116).
   */
  code_sealed: string | null;
  code_length: number;
  locale: string | null;
  attempts: Generated<number>;
  /** The message that carries the latest code. */
  message_id: string | null;
  created_at: number;
  expires_at: number;
  last_sent_at: number;
  /** When it became approved, denied, expired or cancelled. */
  done_at: number | null;
  /** The recipient's country (ISO 3166, e.g. IN); null for an email address or an unknown number. */
  country: string | null;
  /** The destination prefix the pumping guard counts (the first 6 digits with the country code); null for email. */
  prefix: string | null;
  /** The end user's address, when the start named one (`client_ip`). */
  client_ip: string | null;
}

/** An account's verify settings, set by the operator. */
export interface VerifySettingsTable {
  account_id: number;
  template_id: string | null;
  sender_id: string | null;
  whatsapp_template: string | null;
  caller_id: string | null;
  email_from: string | null;
  /** The escalation order, comma-separated (null: sms,whatsapp,voice). */
  channels: string | null;
  /** The countries codes may go to, comma-separated ISO 3166 codes (null: IN). */
  countries: string | null;
  updated_at: number;
}

/** A destination prefix of an account that the pumping guard blocked, or the operator allowed. */
export interface VerifyPrefixesTable {
  account_id: number;
  prefix: string;
  blocked_at: number | null;
  /** New verifications to the prefix are refused until then (verify_prefix_blocked). */
  blocked_until: number | null;
  /** Verifications and conversion in the hour that blocked it. */
  samples: number | null;
  conversion: number | null;
  /** Set: the operator allowed the prefix; the guard no longer blocks it. */
  allowed_at: number | null;
  /** When its block's alert was raised; null once cleared (the block ended or the prefix was allowed). */
  alert_raised_at: number | null;
}

export interface VerifyTables {
  verifications: VerificationsTable;
  verify_settings: VerifySettingsTable;
  verify_prefixes: VerifyPrefixesTable;
}
