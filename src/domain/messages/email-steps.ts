// The email channel's own steps on its messages, which no other channel takes: a bounce that
// comes back after the relay took the message (even after it was reported delivered), the
// message an open or a click names, and a send's recipients as its status call lists them.
import type { Db, Store } from "../../base/store/store.js";
import { withRollups } from "./rollups.js";

/** The most of a bounce's diagnostic that is kept. */
export const DIAGNOSTIC_MAX_LENGTH = 1_000;

/**
 * Moves a submitted or delivered email to failed (`bounced`) with the DSN's diagnostic; answers
 * what its notification needs, or undefined when the id is not an email of ours or it bounced
 * already (a repeated DSN changes nothing).
 */
export async function bounceEmail(store: Store, trx: Db, messageId: string, diagnostic: string, at: number) {
  return withRollups(store, trx, [messageId], () =>
    trx
      .updateTable("messages")
      .set({
        status: "failed",
        error_code: "bounced",
        error_message: diagnostic.slice(0, DIAGNOSTIC_MAX_LENGTH),
        done_at: at,
      })
      .where("id", "=", messageId)
      .where("channel", "=", "email")
      // Email's own step: a bounce may follow the relay's acceptance (delivered).
      .where("status", "in", ["submitted", "delivered"])
      .returning(["id", "account_id", "recipient", "broadcast_id", "error_code", "error_message"])
      .executeTakeFirst(),
  );
}

/** The email an open, click or unsubscribe names, with its account, recipient and content; undefined when the id is not an email. */
export async function findEmailMessage(db: Db, messageId: string) {
  return db
    .selectFrom("messages")
    .select(["id", "account_id", "recipient", "content_id"])
    .where("id", "=", messageId)
    .where("channel", "=", "email")
    .executeTakeFirst();
}

/** Every recipient's message of an account's email send, in id order (none: not its send). */
export async function emailSendMessages(db: Db, accountId: number, broadcastId: string) {
  return db
    .selectFrom("messages")
    .select(["id", "recipient", "status", "meta", "error_message", "submitted_at", "done_at", "created_at", "due_at"])
    .where("account_id", "=", accountId)
    .where("broadcast_id", "=", broadcastId)
    .where("channel", "=", "email")
    .orderBy("id")
    .execute();
}
