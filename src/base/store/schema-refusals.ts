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
}

export interface RefusalsTables {
  refusals: RefusalsTable;
}
