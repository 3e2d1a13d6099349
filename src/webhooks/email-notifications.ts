// Email messages notify their send's notifyurl (from email_contents) instead of the account's
// delivery_report URL: the targets read with their messages, and the notification's payload.
import { isoUtc } from "../core/clock.js";
import type { Db } from "../store/store.js";

/** What an email recipient's notification says (sent, delivered, bounced, opened, clicked). */
export interface EmailNotification {
  status: "sent" | "delivered" | "bounced" | "opened" | "clicked";
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

export async function emailTargets(trx: Db, ids: readonly string[]): Promise<Map<string, EmailTarget>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom("messages")
    .innerJoin("email_contents", "email_contents.id", "messages.content_id")
    .select([
      "messages.id",
      "messages.account_id",
      "messages.recipient",
      "messages.broadcast_id",
      "messages.error_code",
      "messages.error_message",
      "email_contents.notify_url",
      "email_contents.callback_data",
    ])
    .where("messages.id", "in", [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

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
