// What happened to one message, in order: accepted, scheduled, held (no connector of its route
// up, or its account not active), submitted to a carrier, each part's receipt, and how it ended
// (delivered, read, failed with the reason, cancelled), with its cost and whether it was refunded.
// The console's message page reads it through GET /api/v2/messages/{id}, which adds the message's
// webhook deliveries.

import {
  ACCOUNT_HOLD,
  CONNECTORS_HOLD,
  failureReason,
  holdReason,
  shownEndAt,
} from "../../base/core/message-status.js";
import type { MessagePartsTable, MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { refundTime } from "../accounts/index.js";

export interface TimelineEntry {
  at: number;
  event: string;
  detail: string | null;
}

export interface MessagePart {
  part: number;
  status: string;
  vendor_message_id: string;
  error_code: string | null;
  done_at: number | null;
}

/** A part of a message as a carrier took it, with its receipt. */
export type StoredPart = Pick<MessagePartsTable, "part_index" | "status" | "upstream_id" | "error_code" | "done_at">;

/**
 * A message's stored parts in order. They are carriers/smpp/'s (message_parts), above messages/:
 * app/ hands its reader in.
 */
export type MessagePartsReader = (db: Db, messageId: string) => Promise<StoredPart[]>;

/** The fallback chain a message is a step of (its meta, written by channels/chains/), or null. */
export function chainLink(row: Pick<MessageRow, "meta">): { chain_id: string; step: number; steps: number } | null {
  if (row.meta === null || !row.meta.includes('"chain_id"')) return null;
  const meta = JSON.parse(row.meta) as { chain_id?: unknown; chain_step?: unknown; chain_steps?: unknown };
  if (typeof meta.chain_id !== "string") return null;
  return { chain_id: meta.chain_id, step: Number(meta.chain_step), steps: Number(meta.chain_steps) };
}

/** Why a held message waits (or waited), and when it is looked at again. */
function holdDetail(row: MessageRow): string {
  const waiting = (row.status === "queued" || row.status === "dispatching") && holdReason(row) !== undefined;
  const next = new Date(row.due_at).toISOString();
  if (row.error_code === ACCOUNT_HOLD) {
    return waiting
      ? `account not active: ${row.error_message ?? ""} Looked at again ${next}, or at once when it is active again.`
      : "account not active: it waited for its account to be active again.";
  }
  if (waiting) {
    return `${row.error_message ?? "No connector of its route is up."} Looked at again ${next}, or when a connector comes back.`;
  }
  // Failed while held: the stored words still name each connector of the route and its state.
  if (row.error_code === CONNECTORS_HOLD)
    return `No connector of its route was up (connectors_down); it waited for one.${row.error_message ? ` ${row.error_message}` : ""}`;
  // Sent since: the hold's reason is no longer stored.
  return "It waited for a connector of its route to be up (connectors_down) or for its account to be active again (account_inactive).";
}

export async function messageHistory(db: Db, row: MessageRow, readParts: MessagePartsReader) {
  const [parts, refundedAt] = await Promise.all([readParts(db, row.id), refundTime(db, row.account_id, row.id)]);
  const events: TimelineEntry[] = [{ at: row.created_at, event: "accepted", detail: null }];
  const chain = chainLink(row);
  if (chain) {
    events.push({
      at: row.created_at,
      event: "chain step",
      detail: `step ${chain.step} of ${chain.steps} of the fallback send ${chain.chain_id}`,
    });
  }
  // A held message is queued, unattempted and due later too: not scheduled.
  const held = row.held_since !== null;
  if (
    row.status === "scheduled" ||
    (!held && row.due_at > row.created_at + 1000 && row.attempts === 0 && !row.submitted_at)
  ) {
    events.push({ at: row.created_at, event: "scheduled", detail: `due ${new Date(row.due_at).toISOString()}` });
  }
  if (held) events.push({ at: row.held_since!, event: "held", detail: holdDetail(row) });
  if (row.submitted_at !== null) {
    const carrier = row.connector ? `to ${row.connector}` : "to the carrier";
    const id = row.upstream_id ? `, carrier's id ${row.upstream_id}` : "";
    const tries = row.attempts > 1 ? ` after ${row.attempts} attempts` : "";
    const cost = row.cost === null ? "" : `, cost ${Number(row.cost) / 1000} (prefix ${row.cost_prefix ?? "*"})`;
    // The route is chosen before the submit: at the same instant, routed is listed first.
    if (row.route_note) events.push({ at: row.submitted_at, event: "routed", detail: row.route_note });
    events.push({ at: row.submitted_at, event: "submitted", detail: `${carrier}${id}${tries}${cost}` });
  }
  for (const part of parts) {
    if (part.done_at === null || parts.length < 2) continue;
    const reason = part.error_code ? ` (${part.error_code})` : "";
    events.push({
      at: part.done_at,
      event: `part ${part.part_index + 1} of ${parts.length} ${part.status}`,
      detail: `carrier's id ${part.upstream_id}${reason}`,
    });
  }
  if (row.delivered_at !== null || (row.status === "delivered" && row.done_at !== null)) {
    events.push({ at: (row.delivered_at ?? shownEndAt(row))!, event: "delivered", detail: null });
  }
  if (row.read_at !== null) events.push({ at: row.read_at, event: "read", detail: null });
  if ((row.status === "failed" || row.status === "cancelled") && row.done_at !== null) {
    const reason = row.status === "failed" || row.error_code !== null ? failureReason(row) : undefined;
    events.push({
      at: shownEndAt(row)!,
      event: row.status,
      detail: reason ? `${reason.code}: ${reason.message}` : null,
    });
  }
  if (refundedAt !== undefined) events.push({ at: refundedAt, event: "refunded", detail: null });
  // Stable: events of the same instant keep the order they happen in.
  events.sort((a, b) => a.at - b.at);
  return {
    events,
    refunded: refundedAt !== undefined,
    parts: parts.map(
      (part): MessagePart => ({
        part: part.part_index + 1,
        status: part.status,
        vendor_message_id: part.upstream_id,
        error_code: part.error_code,
        done_at: part.done_at,
      }),
    ),
  };
}
