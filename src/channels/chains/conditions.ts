// Whether a waiting step goes, given how the step before it stands: the one rule of a chain,
// without I/O. A step its channel refused counts as failed (nothing was sent, so nothing can be
// delivered or read); a delivered message that is read later is read.
import type { ChainCondition, MessageStatus } from "../../base/store/schema.js";

export type Verdict = "send" | "skip" | "wait";

/** What a chain waits for a message to be before it ends: its last state, or delivered (a read may follow). */
export const FINAL_STATUSES: readonly MessageStatus[] = ["delivered", "read", "failed", "cancelled"];
const FAILED: readonly MessageStatus[] = ["failed", "cancelled"];

/**
 * `previous` is the status of the previous step's message, or "refused" when its channel refused
 * the send; `deadline` the end of the watch (null: until the message is final).
 */
export function verdictOf(
  on: ChainCondition,
  previous: MessageStatus | "refused",
  deadline: number | null,
  now: number,
): Verdict {
  if (previous === "refused" || FAILED.includes(previous)) return "send";
  const passed = deadline !== null && now >= deadline;
  if (on === "failed") {
    if (FINAL_STATUSES.includes(previous)) return "skip";
    return passed ? "skip" : "wait";
  }
  if (on === "not_delivered") {
    if (previous === "delivered" || previous === "read") return "skip";
    return passed ? "send" : "wait";
  }
  if (previous === "read") return "skip";
  return passed ? "send" : "wait";
}

/** Whether a chain's message is delivered (or read): the chain's outcome. */
export function reached(status: MessageStatus | undefined): boolean {
  return status === "delivered" || status === "read";
}
