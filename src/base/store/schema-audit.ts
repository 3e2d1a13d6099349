// The audit log's tables (domain/audit/): one row per change an operator or account made,
// hash-chained, and the chain's head (the lock every append takes, and the last entry's hash).

export interface AuditLogTable {
  /** The entry's place in the chain, from 1 without gaps (given by audit_head, not a sequence). */
  seq: number;
  at: number;
  /** The account whose credentials made the change; null for the CLI. */
  actor_account_id: number | null;
  /** That account's username, as it was; `cli` for the CLI. */
  actor: string;
  /** The user of the account who acted, once accounts have users (null until then). */
  actor_user: string | null;
  /** console, api, operator_api or cli. */
  channel: string;
  /** `session:<id>`, `key:<id>`, or for the CLI `<os user>@<host>`. */
  credential: string | null;
  /** The client's address; null for the CLI. */
  address: string | null;
  /** The account the change concerns; null for the gateway's own (a carrier, a price card). */
  account_id: number | null;
  /** What was done, `<thing>.<verb>`: `credits.topup`, `template.approve`. */
  action: string;
  /** What it was done to, in words: `template 12`, `carrier smsc1`. */
  target: string;
  /** JSON of the thing before the change; null when it was created. */
  before: string | null;
  /** JSON of the thing after the change; null when it was removed. */
  after: string | null;
  prev_hash: string;
  hash: string;
}

export interface AuditHeadTable {
  id: number;
  seq: number;
  hash: string;
}

export interface AuditTables {
  audit_log: AuditLogTable;
  audit_head: AuditHeadTable;
}
