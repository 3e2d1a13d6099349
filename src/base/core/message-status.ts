// The message state machine, shared by every channel. A transition not listed here is a
// bug: `assertTransition` throws, and the SQL that applies a transition only matches rows
// in one of the allowed source states, so two writers can never both move a message.
//
//   scheduled ─► queued ─► dispatching ─► submitted ─► delivered
//       │          │  ▲          │  │        ▲        └► failed
//       ▼          ▼  └──────────┘  └► failed (rejected before the carrier: refunded)
//   cancelled  cancelled  (retry)   queued ───┘ (SQLite: one dispatcher, no lease needed)
// A claimed promotional message whose promotional hours closed is scheduled again (queued or
// dispatching ─► scheduled; delivery/dispatch/promotional-release.ts).
import type { MessageStatus } from "../store/schema.js";

const NEXT: Record<MessageStatus, readonly MessageStatus[]> = {
  scheduled: ["queued", "cancelled"],
  queued: ["dispatching", "submitted", "cancelled", "failed", "scheduled"],
  dispatching: ["submitted", "queued", "failed", "scheduled"],
  submitted: ["delivered", "failed"],
  delivered: [],
  failed: [],
  cancelled: [],
  // WhatsApp's own machine (sending → sent → delivered → read, or failed) lives in
  // whatsapp/status.ts; none of its states is reachable on this one.
  sending: [],
  sent: [],
  read: [],
};

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: MessageStatus,
    readonly to: MessageStatus,
    readonly messageId?: string,
  ) {
    super(`illegal message transition ${from} -> ${to}${messageId ? ` (${messageId})` : ""}`);
    this.name = "IllegalTransitionError";
  }
}

export function canTransition(from: MessageStatus, to: MessageStatus): boolean {
  return NEXT[from].includes(to);
}

export function assertTransition(from: MessageStatus, to: MessageStatus, messageId?: string): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to, messageId);
}

/** The states a message must be in for `to` to apply (used in the WHERE of the UPDATE). */
export function sourcesOf(to: MessageStatus): MessageStatus[] {
  return (Object.keys(NEXT) as MessageStatus[]).filter((from) => NEXT[from].includes(to));
}

/**
 * Why a message failed, as clients see it (the status answer, the list, the failed
 * delivery_report webhook): its stored code and description. Every failure path stores both;
 * a row from before they all did still says that it failed.
 */
export function failureReason(row: {
  error_code: string | null;
  error_message: string | null;
  error_reason?: string | null;
  carrier_code?: string | null;
}): {
  code: string;
  message: string;
  reason?: string;
  carrier_code?: string;
} {
  return {
    code: row.error_code ?? "failed",
    message: row.error_message ?? "The message failed; no reason was given.",
    // A carrier's code its connector maps (issue 40): the catalogue's reason and the code itself.
    ...(row.error_reason ? { reason: row.error_reason, carrier_code: row.carrier_code ?? "" } : {}),
  };
}

/**
 * The error code of a queued message held because its account, or an account above it, is not
 * active (decision 0155): held at dispatch, not sent, until the account is active again.
 */
export const ACCOUNT_HOLD = "account_inactive";

/** The error code of a queued message held because no connector of its route is up. */
export const CONNECTORS_HOLD = "connectors_down";

/**
 * Why a queued message waits, when it is held (its account not active, or no connector of its
 * route up): its code, the words, and since when; undefined for any other message.
 */
export function holdReason(row: {
  status: MessageStatus;
  error_code: string | null;
  error_message: string | null;
  held_since: number | null;
}): { code: string; message: string; since: number } | undefined {
  if (row.status !== "queued" && row.status !== "dispatching") return undefined;
  if (row.error_code !== ACCOUNT_HOLD && row.error_code !== CONNECTORS_HOLD) return undefined;
  if (row.held_since === null) return undefined;
  return { code: row.error_code, message: row.error_message ?? "", since: row.held_since };
}

/** What clients see: internal `dispatching` is still `queued` to them. */
export function publicStatus(status: MessageStatus): string {
  return status === "dispatching" ? "queued" : status;
}

/**
 * When a final message is shown to have ended: its report's time (`done_at`), but never before
 * its submit. A report that came while the carrier was still answering the submit keeps its own
 * time in the store (the routing's latency reads it), and is shown at the submit, so a status's
 * time never runs before the one it follows (delivery_time before sent_time, a webhook's
 * delivered_at before its submitted event's).
 */
export function shownEndAt(row: { done_at: number | null; submitted_at: number | null }): number | null {
  if (row.done_at === null) return null;
  return row.submitted_at === null ? row.done_at : Math.max(Number(row.done_at), Number(row.submitted_at));
}
