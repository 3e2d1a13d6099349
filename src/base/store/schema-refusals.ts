// The refusals table (domain/refusals/): one row per refused send, newest read first.
import type { Generated } from "kysely";

export interface RefusalsTable {
  id: Generated<number>;
  /** The refused account; null when the caller was not authenticated. */
  account_id: number | null;
  /** v2, legacy, xml, email, voice or smpp. */
  family: string;
  /** What was called: `POST /api/v2/sms/send`, `submit_sm`. */
  operation: string;
  /** The first recipients asked for, comma-separated (at most REFUSAL_RECIPIENTS of them). */
  recipients: string | null;
  recipient_count: number;
  sender: string | null;
  /** The message text, truncated. */
  text: string | null;
  /** The HTTP status answered (null over SMPP). */
  http_status: number | null;
  /** The catalogue code (or the SMPP status name when the SMPP layer refused). */
  code: string;
  /** The answer as the family wrote it: `422 dlt_template_mismatch`, `-32`, `0x00000407`. */
  answer: string;
  reason: string;
  request_id: string;
  address: string;
  created_at: number;
  /**
   * The row's one recipient as the message list stores the number (recipientKey), so a number
   * written any way finds it; null when the row names none or several (refusal_recipients).
   */
  recipient_key: string | null;
  /** A recipient left out of an accepted send: the broadcast (a bulk job's batch) it was left out of. */
  broadcast_id: string | null;
  /** … and the bulk job, when the send was one. */
  job_id: number | null;
  /** The username a password login named (legacy, XML, email; never its password), as asked (0069). */
  username: string | null;
  /**
   * A credit refusal's short wallet: the words saying what it holds and what the send needed,
   * which those who may know it read as `reason`, and its level (0: the account's own, read by
   * every reader, decision 0192; 1: the parent, and so on, read by the operator and that level's
   * line, decision 0158).
   */
  upline_reason: string | null;
  upline_level: number | null;
}

/** The recipients' keys of a refused send that named several (one row each). */
export interface RefusalRecipientsTable {
  recipient_key: string;
  refusal_id: number;
}

export interface RefusalsTables {
  refusals: RefusalsTable;
  refusal_recipients: RefusalRecipientsTable;
}
