// Email messages notify their send's notifyurl instead of the account's delivery_report URL:
// what a notification needs of its message and send (read by email/), and its payload.
import { isoUtc } from "../../base/core/clock.js";
import type { Db } from "../../base/store/store.js";

/** What an email recipient's notification says (sent, delivered, bounced, opened, clicked, unsubscribed). */
export interface EmailNotification {
  status: "sent" | "delivered" | "bounced" | "opened" | "clicked" | "unsubscribed";
  at: number;
  /** The clicked URL. */
  url?: string;
  /** Why it bounced (the SMTP answer or the DSN's diagnostic). */
  reason?: string | null;
}

export const EMAIL_STATUS: Record<string, EmailNotification["status"]> = {
  submitted: "sent",
  delivered: "delivered",
  failed: "bounced",
};

export interface EmailTarget {
  id: string;
  account_id: number;
  recipient: string;
  broadcast_id: string;
  error_code: string | null;
  error_message: string | null;
  notify_url: string | null;
  callback_data: string | null;
}

/**
 * Reads the notification targets of email messages, by message id (absent: not an email of a
 * send). email/ owns the sends' content, above webhooks/: app/ hands its reader to the outbox.
 */
export type EmailTargets = (trx: Db, ids: readonly string[]) => Promise<Map<string, EmailTarget>>;

export function emailPayload(target: EmailTarget, recipient: string, notification: EmailNotification) {
  return {
    event: "email",
    status: notification.status,
    email: recipient,
    message_id: target.id,
    broadcast_id: target.broadcast_id,
    at: isoUtc(new Date(notification.at)),
    callbackdata: target.callback_data,
    ...(notification.url !== undefined ? { url: notification.url } : {}),
    ...(notification.reason !== undefined ? { reason: notification.reason } : {}),
  };
}
