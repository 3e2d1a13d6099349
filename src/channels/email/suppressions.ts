// Each account's email suppression list (decision 0171): the addresses that unsubscribed with
// the one-click link of a message (RFC 8058). A list-mail send (the default) leaves them out,
// each in the log of refusals as recipient_opted_out; a transactional send (unsubscribe=0) is
// not filtered. An address is kept in lower case: the send path compares case-insensitively,
// as it de-duplicates recipients.
import { GatewayError } from "../../base/core/errors.js";
import type { Db } from "../../base/store/store.js";
import { findEmailMessage } from "../../domain/messages/index.js";
import { WEBHOOKS_QUEUED } from "../../domain/webhooks/outbox.js";
import type { EmailEventDeps } from "./events.js";

/** What put an address on the list when its recipient used the message's unsubscribe link. */
export const LIST_UNSUBSCRIBE = "list-unsubscribe";
const QUERY_BATCH = 500;

/** Which of these addresses (any case) are on the account's list, in lower case. */
export async function suppressedAmong(db: Db, accountId: number, addresses: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const wanted = [...new Set(addresses.map((a) => a.toLowerCase()))];
  for (let i = 0; i < wanted.length; i += QUERY_BATCH) {
    const rows = await db
      .selectFrom("email_suppressions")
      .select("address")
      .where("account_id", "=", accountId)
      .where("address", "in", wanted.slice(i, i + QUERY_BATCH))
      .execute();
    for (const row of rows) found.add(row.address);
  }
  return found;
}

/** The message an unsubscribe link names: its recipient, its sender and whether the recipient is listed already. */
export async function unsubscribeTarget(db: Db, messageId: string) {
  const message = await findEmailMessage(db, messageId);
  if (!message) return undefined;
  const content =
    message.content_id === null
      ? undefined
      : await db
          .selectFrom("email_contents")
          .select(["from_address", "from_name"])
          .where("id", "=", message.content_id)
          .executeTakeFirst();
  const listed = await suppressedAmong(db, message.account_id, [message.recipient]);
  return {
    recipient: message.recipient,
    from: content ? (content.from_name ?? content.from_address) : undefined,
    listed: listed.size > 0,
  };
}

/**
 * The recipient of a message unsubscribes: its address goes on the account's list, with an
 * `unsubscribed` email event and its send's notification, in one transaction. Idempotent: an
 * address on the list already changes nothing ("already"). Undefined when the id is no email.
 */
export async function unsubscribeRecipient(
  deps: EmailEventDeps,
  messageId: string,
): Promise<"added" | "already" | undefined> {
  const now = deps.clock.now().getTime();
  const outcome = await deps.store.transaction(async (trx) => {
    const message = await findEmailMessage(trx, messageId);
    if (!message) return undefined;
    const inserted = await trx
      .insertInto("email_suppressions")
      .values({
        account_id: message.account_id,
        address: message.recipient.toLowerCase(),
        reason: LIST_UNSUBSCRIBE,
        message_id: message.id,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(["account_id", "address"]).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return "already" as const;
    await trx
      .insertInto("email_events")
      .values({ message_id: message.id, account_id: message.account_id, kind: "unsubscribed", detail: null, at: now })
      .execute();
    await deps.webhooks.emailNotification(trx, message.id, { status: "unsubscribed", at: now }, now);
    return "added" as const;
  });
  if (outcome === "added") deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
  return outcome;
}

/** The account's list, newest first, a page at a time. */
export async function listEmailSuppressions(db: Db, accountId: number, page: { page: number; perPage: number }) {
  const filtered = db.selectFrom("email_suppressions").where("account_id", "=", accountId);
  const [rows, count] = await Promise.all([
    filtered
      .select(["address", "reason", "message_id", "created_at"])
      .orderBy("created_at", "desc")
      .orderBy("address")
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
    filtered.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** Takes an address off the account's list (the recipient asked to be mailed again); the row it was, or 404. */
export async function removeEmailSuppression(trx: Db, accountId: number, address: string) {
  const row = await trx
    .deleteFrom("email_suppressions")
    .where("account_id", "=", accountId)
    .where("address", "=", address.trim().toLowerCase())
    .returning(["address", "reason", "message_id", "created_at"])
    .executeTakeFirst();
  if (!row) throw new GatewayError("not_found", `${address.slice(0, 254)} is not on the email suppression list.`);
  return row;
}
