// Where an email message's notification goes: its send's notifyurl and callbackdata, read with
// the message's own fields (webhooks/' EmailTargets, handed to the webhook outbox by app/).
import type { Db } from "../../base/store/store.js";
import type { EmailTarget } from "../../domain/webhooks/email-notifications.js";

/**
 * The notification targets of these messages, by message id; a message that is not an email
 * of a send is absent. The message and its send's content are read in one statement: the outbox
 * calls this in every transaction that reports emails and on each open and click.
 */
export async function emailNotifyTargets(trx: Db, ids: readonly string[]): Promise<Map<string, EmailTarget>> {
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
