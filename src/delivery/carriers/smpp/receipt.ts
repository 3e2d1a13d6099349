// Delivery receipts: the SMSC's deliver_sm with esm_class "receipt" whose text is
// `id:… sub:… dlvrd:… submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DELIVRD err:000 text:…`
// (SMPP 3.4 appendix B, which SMSCs follow loosely), and the receipted_message_id (0x001E) and
// message_state (0x0427) TLVs, which win when present.
import { DateTime } from "luxon";
import { statOfMessageState } from "../../../base/smpp/index.js";

export type ReceiptStatus = "delivered" | "failed" | "other";

export interface Receipt {
  /** The message_id the SMSC gave in submit_sm_resp (one part's id). */
  upstreamId: string;
  status: ReceiptStatus;
  /** The stat word as sent (DELIVRD, UNDELIV, ...), upper case; from message_state when only the TLV says it. */
  stat: string;
  /** The carrier's error code (`err:`), or null. */
  err: string | null;
  /** Epoch ms of `done date` read in the connector's receipt time zone (UTC unless set), or null when absent or unreadable. */
  doneAt: number | null;
}

export interface ReceiptFields {
  text?: string | Buffer | undefined;
  receiptedMessageId?: string | undefined;
  messageState?: number | undefined;
}

const FINAL_STATS: Record<string, ReceiptStatus> = {
  DELIVRD: "delivered",
  DELIVERED: "delivered",
  EXPIRED: "failed",
  DELETED: "failed",
  UNDELIV: "failed",
  UNDELIVERABLE: "failed",
  REJECTD: "failed",
  REJECTED: "failed",
  FAILED: "failed",
};

/** What a failed receipt's stat word tells the client, in words. */
const STAT_MEANINGS: Record<string, string> = {
  EXPIRED: "the carrier gave up before the handset could be reached (its validity period ran out)",
  DELETED: "the carrier deleted the message before it was delivered",
  UNDELIV: "the carrier could not deliver the message to the handset",
  UNDELIVERABLE: "the carrier could not deliver the message to the handset",
  REJECTD: "the carrier rejected the message",
  REJECTED: "the carrier rejected the message",
  FAILED: "the carrier could not deliver the message",
};

export function meaningOfStat(stat: string): string {
  return STAT_MEANINGS[stat.toUpperCase()] ?? "the carrier did not deliver the message";
}

const FIELDS = new Map(
  ["id", "stat", "err", "done date"].map((name) => [name, new RegExp(`(?:^|\\s)${name}:\\s*(\\S+)`, "i")]),
);

function field(head: string, name: "id" | "stat" | "err" | "done date"): string | null {
  return FIELDS.get(name)!.exec(head)?.[1] ?? null;
}

/**
 * YYMMDDhhmm[ss] as a wall-clock time in `zone` (an IANA name or a fixed offset such as
 * `UTC+5:30`, checked when the connector is read): SMSCs do not say their zone, so the connector's
 * `receipt_time_zone` does (UTC unless set).
 */
export function parseReceiptDate(value: string | null, zone = "UTC"): number | null {
  const match = value ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?$/.exec(value) : null;
  if (!match) return null;
  const [, yy, mo, dd, hh, mi, ss] = match.map((digits) => Number(digits ?? 0));
  const at = Date.UTC(2000 + yy!, mo! - 1, dd!, hh!, mi!, ss);
  const check = new Date(at);
  const real = check.getUTCMonth() === mo! - 1 && check.getUTCDate() === dd && hh! < 24 && mi! < 60;
  if (!real) return null;
  if (zone === "UTC") return at;
  const local = DateTime.fromObject(
    { year: 2000 + yy!, month: mo!, day: dd!, hour: hh!, minute: mi!, second: ss! },
    { zone },
  );
  return local.isValid ? local.toMillis() : null;
}

/**
 * When a part was done, from its receipt's `done date` (null: none): never after the receipt came
 * (an SMSC whose zone is not set, or whose clock is ahead), nor after the submit's own time when
 * the receipt's clock is behind it. A done date before the submit is kept as written: adaptive
 * routes read accept-to-receipt latencies from it, and one that reads negative is left out there.
 */
export function doneAtOf(doneAt: number | null, submittedAt: number, receivedAt: number): number {
  return Math.min(doneAt ?? receivedAt, Math.max(receivedAt, submittedAt));
}

export function statusOfStat(stat: string): ReceiptStatus {
  return FINAL_STATS[stat.toUpperCase()] ?? "other";
}

/** Reads a receipt, or null when neither the text nor the TLVs name the message it is about. */
export function parseReceipt(fields: ReceiptFields, zone = "UTC"): Receipt | null {
  const text = Buffer.isBuffer(fields.text) ? fields.text.toString("latin1") : (fields.text ?? "");
  // `text:` quotes the message, which may itself contain "id:" or "stat:".
  const head = text.split(/(?:^|\s)text:/i)[0] ?? "";
  const upstreamId = fields.receiptedMessageId?.trim() || field(head, "id");
  if (!upstreamId) return null;
  const fromState = fields.messageState !== undefined ? statOfMessageState(fields.messageState) : undefined;
  const stat = (fromState ?? field(head, "stat") ?? "UNKNOWN").toUpperCase();
  return {
    upstreamId,
    status: statusOfStat(stat),
    stat,
    err: field(head, "err"),
    doneAt: parseReceiptDate(field(head, "done date"), zone),
  };
}

/**
 * Whether a receipt's id names a submitted part: SMSCs that answer submit_sm_resp with a hex id
 * often write it in decimal in the receipt (and some pad it with zeros).
 */
export function receiptIdMatches(receiptId: string, messageId: string): boolean {
  if (receiptId.toLowerCase() === messageId.toLowerCase()) return true;
  if (!/^\d+$/.test(receiptId)) return false;
  if (/^\d+$/.test(messageId) && BigInt(messageId) === BigInt(receiptId)) return true;
  return /^[0-9a-f]+$/i.test(messageId) && BigInt(`0x${messageId}`) === BigInt(receiptId);
}

/**
 * A concatenated message's state from its parts' receipts (null: no receipt yet): failed as soon
 * as one part failed, delivered once every part is, otherwise still pending (null).
 */
export function messageStatusFromParts(parts: Array<ReceiptStatus | null>): "delivered" | "failed" | null {
  if (parts.includes("failed")) return "failed";
  return parts.length > 0 && parts.every((status) => status === "delivered") ? "delivered" : null;
}
