// An email send's content and attachments, stored once for all its recipients: written by the
// Acceptor in the transaction that accepts the messages (SendOrder.shared, kind "email"), which
// may run in another thread than the request's, so the send hands over data, not code.

import type { Db } from "../../base/store/store.js";
import type { SharedContentWriter } from "../../domain/messages/index.js";

export const EMAIL_CONTENT = "email";

/** email_contents' row but for its account and broadcast (the Acceptor's), with its attachments. */
export interface EmailContentDraft {
  from_address: string;
  from_name: string | null;
  subject: string;
  html: string;
  text: string | null;
  reply_to: string | null;
  to_list: string;
  cc_list: string;
  track_opens: number;
  track_clicks: number;
  list_unsubscribe: number;
  notify_url: string | null;
  callback_data: string | null;
  created_at: number;
  attachments: Array<{ filename: string; content_type: string; data: Uint8Array }>;
}

export const writeEmailContent: SharedContentWriter = async (trx: Db, send, content) => {
  const { attachments, ...fields } = content as EmailContentDraft;
  const row = await trx
    .insertInto("email_contents")
    .values({ ...fields, account_id: send.accountId, broadcast_id: send.broadcastId })
    .returning("id")
    .executeTakeFirstOrThrow();
  for (const file of attachments) {
    // A Buffer sent to another thread arrives as a plain Uint8Array, which the drivers do not bind.
    const data = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
    await trx
      .insertInto("email_attachments")
      .values({ content_id: row.id, filename: file.filename, content_type: file.content_type, size: data.length, data })
      .execute();
  }
  return { content_id: row.id };
};

/**
 * What email keeps of messages that retention removed: their events and captured mail, and the
 * contents (with attachments) no message names any more (`unused`, found by messages/).
 */
export async function removeRetiredEmailData(trx: Db, messageIds: string[], unused: number[]): Promise<void> {
  if (messageIds.length > 0) {
    await trx.deleteFrom("email_events").where("message_id", "in", messageIds).execute();
    await trx.deleteFrom("email_captured").where("message_id", "in", messageIds).execute();
  }
  if (unused.length > 0) {
    await trx.deleteFrom("email_attachments").where("content_id", "in", unused).execute();
    await trx.deleteFrom("email_contents").where("id", "in", unused).execute();
  }
}
