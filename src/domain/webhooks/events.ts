// The events the webhook outbox is told about (delivery reports, inbound SMS and WhatsApp) and
// the other sinks of the same events; the payloads' shapes that more than one writer builds.
import { isoUtc } from "../../base/core/clock.js";
import type { Db } from "../../base/store/store.js";

/** A message whose state a delivery report tells. */
export interface ReportedMessage {
  id: string;
  account_id: number;
  recipient: string;
  status: string;
  /** When it reached that state (epoch ms). */
  at: number;
  /**
   * The broadcast id of its send, the id a legacy, XML or voice send answered: the payload's
   * broadcast_id. Every writer of delivery reports gives it, cancel_sm's receipts too.
   */
  broadcast_id: string;
  /** The v2 bulk job it belongs to, if any (the payload's job_id, left out when null). */
  job_id?: number | null;
  /** The id the client knows it by, when not the queue id (WhatsApp: the upstream wamid). */
  messageId?: string;
  /** Channel-specific fields added to the payload (WhatsApp: channel, id, error). */
  extra?: Record<string, unknown>;
  /** Email messages notify their send's notifyurl, when it has one, instead of delivery_report. */
  channel?: string;
  /** Why a failed message failed: the payload's `error` (a WhatsApp failure brings its own in `extra`). */
  error_code?: string | null;
  error_message?: string | null;
  /** A carrier's failure code mapped to a reason of the catalogue, and that code (the payload's error.reason, error.carrier_code). */
  error_reason?: string | null;
  carrier_code?: string | null;
}

export interface InboundEvent {
  accountId: number;
  from: string;
  to: string;
  message: string;
  receivedAt: number;
}

/** A WhatsApp message a customer sent to the account's business number. */
export interface InboundWhatsAppEvent {
  accountId: number;
  /** The customer's WhatsApp id (digits with country code). */
  from: string;
  /** The business number it was sent to. */
  to: string;
  /** Text, caption, button or reply title; empty for media without a caption. */
  message: string;
  type: string;
  messageId: string;
  mediaId?: string | undefined;
  profileName?: string | undefined;
  receivedAt: number;
}

export function inboundWhatsAppPayload(event: InboundWhatsAppEvent): Record<string, unknown> {
  return {
    event: "inbound_whatsapp",
    from: event.from,
    to: event.to,
    message: event.message,
    type: event.type,
    message_id: event.messageId,
    media_id: event.mediaId ?? null,
    profile_name: event.profileName ?? null,
    received_at: isoUtc(new Date(event.receivedAt)),
  };
}

/** A wallet below its alert threshold, as the account's low_balance event tells it (credits). */
export interface LowBalance {
  username: string;
  wallet: string;
  balance: number;
  threshold: number;
  at: number;
}

export function lowBalancePayload(event: LowBalance): Record<string, unknown> {
  return {
    event: "low_balance",
    account: event.username,
    wallet: event.wallet,
    balance: event.balance,
    threshold: event.threshold,
    at: isoUtc(new Date(event.at)),
  };
}

/**
 * Another way events reach clients, written in the same transaction as the webhook rows (the
 * SMPP server's receipts and MO, smpp-server/outbox.ts). Its count is added to the answer, so
 * the caller's WEBHOOKS_QUEUED signal after the commit wakes its reader too.
 */
export interface ClientEventSink {
  deliveryReports(trx: Db, messages: readonly ReportedMessage[], now: number): Promise<number>;
  inboundSms(trx: Db, event: InboundEvent, orderKey: string, now: number): Promise<number>;
}
