// Fallback chains' tables (POST /api/v2/send, issue 41), as Kysely sees them; `Database` extends this.

export type ChainStatus = "running" | "completed";
/** How a completed chain ended: some step's message delivered (or read), or none did. */
export type ChainOutcome = "delivered" | "undelivered";
export type ChainCondition = "failed" | "not_delivered" | "not_read";
/**
 * A step's own state: `pending` (an earlier step is not decided), `waiting` (the previous step's
 * message is watched until `due_at`), `sending` (claimed; `due_at` is the claim's lease),
 * `sent` (its message is `message_id`), `refused` (its channel refused the send, nothing
 * charged), `skipped` (its condition was not met, or an earlier step's was not).
 */
export type ChainStepStatus = "pending" | "waiting" | "sending" | "sent" | "refused" | "skipped";

/** One POST /api/v2/send. */
export interface SendChainsTable {
  /** `c` + ULID. */
  id: string;
  account_id: number;
  recipient: string;
  status: ChainStatus;
  outcome: ChainOutcome | null;
  step_count: number;
  created_at: number;
  completed_at: number | null;
}

/** One step of a chain: a send by one channel, made when its condition on the step before is met. */
export interface ChainStepsTable {
  chain_id: string;
  /** 0 for the first step. */
  position: number;
  channel: string;
  /** The step's `to`, else the chain's recipient. */
  recipient: string;
  /** The channel's own send fields, as JSON. */
  fields: string;
  /** Null for the first step, which goes at once. */
  after_on: ChainCondition | null;
  /** How long the previous step's message is watched; null: until it is final. */
  within_ms: number | null;
  status: ChainStepStatus;
  due_at: number | null;
  message_id: string | null;
  error_code: string | null;
  error_message: string | null;
  sent_at: number | null;
  /** When it became sent, refused or skipped. */
  decided_at: number | null;
}

export interface ChainsTables {
  send_chains: SendChainsTable;
  chain_steps: ChainStepsTable;
}
