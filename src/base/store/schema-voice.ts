// The voice family's tables (issue 9), as Kysely sees them; `Database` extends this.
import type { Generated } from "kysely";

/** A number an operator approved as the caller (`from`) of an account's voice calls. */
export interface VoiceCallerIdsTable {
  id: Generated<number>;
  account_id: number;
  /** E.164 with the +, e.g. +918047110000. */
  number: string;
  /** `pending` when the account asked for it; only an approved number may call. */
  status: Generated<"pending" | "approved" | "rejected">;
  /** The operator's reason when rejecting it, shown to the account; null otherwise (0059). */
  rejection_reason: Generated<string | null>;
  created_at: number;
}

export interface VoiceTables {
  voice_caller_ids: VoiceCallerIdsTable;
}
