// The v2 delivery report of one message, as the spec's "Message delivery report" table shows it.
import { isoUtc } from "../../base/core/clock.js";
import { fromMilli } from "../../base/core/credits.js";
import { failureReason, holdReason, publicStatus, shownEndAt } from "../../base/core/message-status.js";
import type { MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { clicksOf } from "../../domain/messages/index.js";
import { callReport } from "../voice/index.js";

/** `clicks`: its tracked short links' clicks, when the message has any (clickCounts). */
export function deliveryReport(row: MessageRow, clicks?: number) {
  // Only a failed (or cancelled) message carries an error: a queued one may still hold the
  // error of an attempt that will be retried.
  const unsuccessful = row.status === "failed" || (row.status === "cancelled" && row.error_code !== null);
  // WhatsApp records delivery in its own column (a read message was delivered too).
  const deliveredAt = row.delivered_at ?? (row.status === "delivered" ? shownEndAt(row) : null);
  // A queued message that is held says why it waits: its account is not active (decision 0155),
  // or no connector of its route is up.
  const held = holdReason(row);
  return {
    message_id: row.id,
    broadcast_id: row.broadcast_id,
    mobile: row.recipient,
    status: publicStatus(row.status),
    delivery_time: deliveredAt === null ? null : isoUtc(new Date(deliveredAt)),
    sent_time: row.submitted_at !== null ? isoUtc(new Date(row.submitted_at)) : null,
    sender_id: row.sender,
    credit: fromMilli(row.credits),
    route: row.route,
    segments: row.segments,
    encoding: row.encoding,
    vendor_message_id: row.upstream_id,
    created_at: isoUtc(new Date(row.created_at)),
    channel: row.channel,
    // The text sent (an email's subject).
    message: row.body,
    ...(row.status === "scheduled" ? { scheduled_at: isoUtc(new Date(row.due_at)) } : {}),
    // A voice call: its progress (ringing, in-progress), duration and units.
    ...(row.channel === "voice" ? { call: callReport(row) } : {}),
    ...(unsuccessful ? { error: failureReason(row) } : {}),
    ...(held ? { held: { code: held.code, message: held.message, since: isoUtc(new Date(held.since)) } } : {}),
    ...(clicks === undefined ? {} : { clicks }),
  };
}

/** The clicks of the rows' tracked short links, by message id (messages without short links are absent). */
export async function clickCounts(
  db: Db,
  rows: readonly Pick<MessageRow, "id" | "channel">[],
): Promise<Map<string, number>> {
  const sms = rows.filter((row) => row.channel === "sms").map((row) => row.id);
  const found = await clicksOf(db, sms);
  return new Map([...found].map(([id, counted]) => [id, counted.clicks]));
}

/** The rows' delivery reports, each with its clicks. */
export async function deliveryReports(db: Db, rows: readonly MessageRow[]) {
  const clicks = await clickCounts(db, rows);
  return rows.map((row) => deliveryReport(row, clicks.get(row.id)));
}
