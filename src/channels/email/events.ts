// What happens to an email after the relay took it: bounces that come back (a DSN), opens
// and clicks. Each is recorded in `email_events` with its notification in the same transaction.
import type { Clock } from "../../base/core/clock.js";
import type { Store } from "../../base/store/store.js";
import { bounceEmail, DIAGNOSTIC_MAX_LENGTH, findEmailMessage } from "../../domain/messages/index.js";
import { WEBHOOKS_QUEUED, type WebhookOutbox } from "../../domain/webhooks/outbox.js";

export interface EmailEventDeps {
  store: Store;
  clock: Clock;
  webhooks: WebhookOutbox;
}

export interface ReturnedBounce {
  messageId: string;
  /** The DSN's Diagnostic-Code or status, kept on the message. */
  diagnostic: string;
  at?: number;
}

/**
 * A bounce received back: the recipient's message becomes failed (`bounced`), even after the
 * relay had accepted it, and its send is notified. Returns false for a message that is not an
 * email of ours or has bounced already (a repeated DSN changes nothing). Not refunded: the
 * message was sent.
 */
export async function applyReturnedBounce(deps: EmailEventDeps, bounce: ReturnedBounce): Promise<boolean> {
  const now = deps.clock.now().getTime();
  const at = bounce.at ?? now;
  // A DSN is anyone's mail to the bounce domain, up to 10 MiB: its words are kept as the message's are.
  const diagnostic = bounce.diagnostic.slice(0, DIAGNOSTIC_MAX_LENGTH);
  const moved = await deps.store.transaction(async (trx) => {
    const row = await bounceEmail(deps.store, trx, bounce.messageId, diagnostic, at);
    if (!row) return false;
    await trx
      .insertInto("email_events")
      .values({ message_id: row.id, account_id: row.account_id, kind: "bounced", detail: diagnostic, at })
      .execute();
    await deps.webhooks.deliveryReports(trx, [{ ...row, status: "failed", at, channel: "email" }], now);
    return true;
  });
  if (moved) deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
  return moved;
}

/** An open (pixel fetched) or a click (link followed) of a recipient's message. */
export async function recordEngagement(
  deps: EmailEventDeps,
  messageId: string,
  kind: "opened" | "clicked",
  url?: string,
): Promise<boolean> {
  const now = deps.clock.now().getTime();
  const recorded = await deps.store.transaction(async (trx) => {
    const message = await findEmailMessage(trx, messageId);
    if (!message) return false;
    await trx
      .insertInto("email_events")
      .values({ message_id: message.id, account_id: message.account_id, kind, detail: url ?? null, at: now })
      .execute();
    await deps.webhooks.emailNotification(
      trx,
      message.id,
      { status: kind, at: now, ...(url !== undefined ? { url } : {}) },
      now,
    );
    return true;
  });
  if (recorded) deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
  return recorded;
}
