// The webhook outbox: an event becomes a delivery row in the same transaction as the state
// change it reports, so an event is never lost (the change committed) nor invented (it did
// not). Only accounts with a URL for the event get rows; which accounts have one is held in
// memory per account, dropped on every process when an account's settings change, and checked
// against the URLs' version before deliveries go straight to this process's sender.

import { sql } from "kysely";
import { BoundedMap } from "../../base/core/bounded-map.js";
import { isoUtc } from "../../base/core/clock.js";
import { failureReason } from "../../base/core/message-status.js";
import type { NewWebhookDelivery, WebhookEvent } from "../../base/store/schema.js";
import { readVersion } from "../../base/store/setting-versions.js";
import type { Db, Store } from "../../base/store/store.js";
import { delivery } from "./delivery-rows.js";
import { EMAIL_STATUS, type EmailNotification, type EmailTargets, emailPayload } from "./email-notifications.js";
import type { ClientEventSink, InboundEvent, ReportedMessage } from "./events.js";
import { type DirectSender, Handoff } from "./handoff.js";

/** Signal sent (payload: the account id) after an account's webhook settings change. */
export const WEBHOOKS_CHANGED = "webhooks_changed";
/**
 * Moved (setting-versions.ts) in the transaction of every change of a webhook URL: the
 * hand-off's check that the cached URLs are current (WebhookOutbox.urlsMoved).
 */
export const WEBHOOK_URLS_VERSION = "webhook_urls_version";
/** Signal sent after deliveries were written, to wake the sender. */
export const WEBHOOKS_QUEUED = "webhooks_queued";
const TTL_MS = 2_000;
const MAX_ACCOUNTS = 10_000;

type Urls = Partial<Record<WebhookEvent, string>>;

/**
 * Runs `fn` in one transaction with a hand-off of `outbox` when this process's sender is
 * attached: the deliveries `fn` writes claimed go to the sender once the transaction commits,
 * and their slots go back if it fails.
 */
export async function withHandoff<T>(
  store: Store,
  outbox: WebhookOutbox | undefined,
  fn: (trx: Db, handoff: Handoff | undefined) => Promise<T>,
): Promise<T> {
  const handoff = outbox?.handoff();
  const result = await store
    .transaction((trx) => fn(trx, handoff))
    .catch((error: unknown) => {
      handoff?.failed();
      throw error;
    });
  handoff?.committed();
  return result;
}

export class WebhookOutbox {
  private direct: DirectSender | undefined;
  private readonly urls = new BoundedMap<number, { value: Promise<Urls>; expires: number }>(MAX_ACCOUNTS);
  /** WEBHOOK_URLS_VERSION as last read: the cached URLs are no older than it. */
  private urlsVersion: string | undefined;
  /** Further sinks of the same events (see ClientEventSink). */
  readonly sinks: ClientEventSink[] = [];

  /** `emailTargets`: email/'s reader of where an email's notification goes. */
  constructor(
    private readonly store: Store,
    private readonly emailTargets: EmailTargets,
  ) {
    store.signals.listen(WEBHOOKS_CHANGED, (payload) => this.urls.delete(Number(payload)));
  }

  /** This process's webhook sender takes delivery reports directly (see DirectSender). */
  attachSender(sender: DirectSender): void {
    this.direct = sender;
  }

  detachSender(): void {
    this.direct = undefined;
  }

  /** A hand-off for one transaction's delivery reports, when a sender is attached. */
  handoff(): Handoff | undefined {
    return this.direct ? new Handoff(this.direct) : undefined;
  }

  /** The account's URL per event (cached briefly; dropped on WEBHOOKS_CHANGED). */
  async urlsOf(db: Db, accountId: number): Promise<Urls> {
    const now = Date.now();
    const hit = this.urls.get(accountId);
    if (hit && hit.expires > now) return hit.value;
    const value = db
      .selectFrom("webhook_endpoints")
      .select(["event", "url"])
      .where("account_id", "=", accountId)
      .execute()
      .then((rows) => Object.fromEntries(rows.map((r) => [r.event, r.url])) as Urls);
    this.urls.set(accountId, { value, expires: now + TTL_MS });
    value.catch(() => this.urls.delete(accountId));
    return value;
  }

  /**
   * Inside the transaction that changed the messages: one `delivery_report` per message. With a
   * hand-off, the deliveries the sender has room for are written claimed (see DirectSender).
   * Returns the rows a reader must be woken for (WEBHOOKS_QUEUED): the deliveries left pending
   * and the sinks' rows, not those handed off, which their sender already has. Each wake-up of a
   * sender is a claim's scan of the pending deliveries: counting the handed-off ones woke one
   * after every commit of reports or submits (175 scans a second under load, finding nothing).
   */
  async deliveryReports(
    trx: Db,
    messages: readonly ReportedMessage[],
    now: number,
    handoff?: Handoff,
  ): Promise<number> {
    const byAccount = new Map<number, ReportedMessage[]>();
    let notified = 0;
    for (const sink of this.sinks) notified += await sink.deliveryReports(trx, messages, now);
    const emails = messages.filter((m) => m.channel === "email");
    if (emails.length > 0) {
      const others = new Set(await this.emailNotificationsFor(trx, emails, now));
      notified += emails.length - others.size;
      messages = messages.filter((m) => m.channel !== "email" || others.has(m.id));
    }
    for (const message of messages) {
      const list = byAccount.get(message.account_id) ?? [];
      list.push(message);
      byAccount.set(message.account_id, list);
    }
    const seen = this.urlsVersion;
    let rows = await this.reportRows(trx, byAccount, now);
    // Handed-off deliveries skip the claim, which gives the others the account's current URL:
    // theirs must not come from a cache older than a URL change another thread or process made.
    if (handoff && rows.length > 0 && (await this.urlsMoved(trx, seen))) {
      rows = await this.reportRows(trx, byAccount, now);
    }
    const claimed = handoff ? await this.claimForHandoff(trx, rows, handoff, now) : [];
    // Claimed rows first: a later event of the same message, left pending, gets a higher id
    // and so waits for them (the claim's order-key rule).
    for (let i = 0; i < claimed.length; i += 500) {
      handoff!.add(
        await trx
          .insertInto("webhook_deliveries")
          .values(claimed.slice(i, i + 500))
          .returningAll()
          .execute(),
      );
    }
    await this.store.insertMany(
      trx,
      "webhook_deliveries",
      claimed.length === 0 ? rows : rows.filter((row) => row.status === "pending"),
    );
    return rows.length - claimed.length + notified;
  }

  /** One `delivery_report` per message of an account with a URL for it (the cached URLs). */
  private async reportRows(trx: Db, byAccount: ReadonlyMap<number, ReportedMessage[]>, now: number) {
    const rows: NewWebhookDelivery[] = [];
    for (const [accountId, list] of byAccount) {
      const url = (await this.urlsOf(trx, accountId)).delivery_report;
      if (!url) continue;
      for (const message of list) {
        rows.push(
          delivery(accountId, "delivery_report", message.id, url, now, {
            event: "delivery_report",
            message_id: message.messageId ?? message.id,
            status: message.status,
            delivered_at: isoUtc(new Date(message.at)),
            recipient: message.recipient,
            ...failureOf(message),
            ...message.extra,
            // Added after the spec's fields: the id a legacy, XML, voice or bulk send answered.
            broadcast_id: message.broadcast_id,
            ...(message.job_id == null ? {} : { job_id: message.job_id }),
          }),
        );
      }
    }
    return rows;
  }

  /**
   * Whether a URL change committed since the cached URLs were read (`seen`: the version they were
   * read under), by the version the change moved (WEBHOOK_URLS_VERSION), read in the transaction
   * that writes the deliveries: then the cache is forgotten, wherever the change was made. Its
   * signal (WEBHOOKS_CHANGED) may not have reached this thread yet; on SQLite another process
   * sends none.
   */
  private async urlsMoved(trx: Db, seen: string | undefined): Promise<boolean> {
    const current = await readVersion(this.store, WEBHOOK_URLS_VERSION, trx);
    if (current === seen) return false;
    if (current !== this.urlsVersion) {
      this.urls.clear();
      this.urlsVersion = current;
    }
    return true;
  }

  /**
   * Marks as claimed (status delivering, first attempt, the sender's lease) the rows the
   * hand-off's sender has room for and whose message has no earlier event still open here,
   * which would have to go first; returns them.
   */
  private async claimForHandoff(
    trx: Db,
    rows: NewWebhookDelivery[],
    handoff: Handoff,
    now: number,
  ): Promise<NewWebhookDelivery[]> {
    if (rows.length === 0) return [];
    const open = new Set<string>();
    const keys = [...new Set(rows.map((row) => row.order_key))];
    for (let i = 0; i < keys.length; i += 500) {
      const found = await trx
        .selectFrom("webhook_deliveries")
        .select("order_key")
        .where("order_key", "in", keys.slice(i, i + 500))
        .where("status", "in", [sql.lit("pending" as const), sql.lit("delivering" as const)])
        .execute();
      for (const { order_key } of found) open.add(order_key);
    }
    const eligible = new Map<number, NewWebhookDelivery[]>();
    for (const row of rows) {
      if (open.has(row.order_key)) continue;
      open.add(row.order_key); // a second event of the message in this batch waits for the first
      const list = eligible.get(row.account_id) ?? [];
      list.push(row);
      eligible.set(row.account_id, list);
    }
    const claimed: NewWebhookDelivery[] = [];
    for (const [accountId, list] of eligible) {
      const granted = handoff.reserve(accountId, list.length);
      for (const row of list.slice(0, granted)) {
        row.status = "delivering";
        row.attempts = 1;
        row.lease_until = now + handoff.sender.leaseMs;
        claimed.push(row);
      }
    }
    return claimed;
  }

  /**
   * Email messages whose send has a notifyurl get a notification there; returns the ids of those
   * without one (they get the account's delivery_report like any message).
   */
  private async emailNotificationsFor(trx: Db, messages: readonly ReportedMessage[], now: number): Promise<string[]> {
    const targets = await this.emailTargets(
      trx,
      messages.map((m) => m.id),
    );
    const rest: string[] = [];
    for (const message of messages) {
      const target = targets.get(message.id);
      const status = EMAIL_STATUS[message.status];
      if (!target?.notify_url || !status) {
        rest.push(message.id);
        continue;
      }
      await this.enqueueTo(trx, message.account_id, target.notify_url, message.id, now, {
        ...emailPayload(target, message.recipient, {
          status,
          at: message.at,
          ...(status === "bounced" ? { reason: target.error_message } : {}),
        }),
        ...(status === "bounced" ? failureOf({ status: "failed", ...target }) : {}),
      });
    }
    return rest;
  }

  /** An email notification for one recipient's message (opens, clicks, bounces received back). */
  async emailNotification(trx: Db, messageId: string, notification: EmailNotification, now: number): Promise<number> {
    const target = (await this.emailTargets(trx, [messageId])).get(messageId);
    if (!target?.notify_url) return 0;
    await this.enqueueTo(trx, target.account_id, target.notify_url, messageId, now, {
      ...emailPayload(target, target.recipient, notification),
    });
    return 1;
  }

  /** One event to a URL the request named (an email's notifyurl), signed and retried like the rest. */
  private async enqueueTo(
    trx: Db,
    accountId: number,
    url: string,
    orderKey: string,
    now: number,
    payload: Record<string, unknown>,
  ): Promise<void> {
    await this.store.insertMany(trx, "webhook_deliveries", [delivery(accountId, "email", orderKey, url, now, payload)]);
  }

  /** Inside the transaction that stored the inbound message. */
  async inboundSms(trx: Db, event: InboundEvent, orderKey: string, now: number): Promise<number> {
    let sunk = 0;
    for (const sink of this.sinks) sunk += await sink.inboundSms(trx, event, orderKey, now);
    return sunk + (await this.webhook(trx, event, orderKey, now));
  }

  private webhook(trx: Db, event: InboundEvent, orderKey: string, now: number): Promise<number> {
    return this.enqueue(trx, event.accountId, "inbound_sms", orderKey, now, {
      event: "inbound_sms",
      from: event.from,
      to: event.to,
      message: event.message,
      received_at: isoUtc(new Date(event.receivedAt)),
    });
  }

  /** One event for one account, inside the transaction of the change it reports; 0 when the account has no URL for it. */
  async enqueue(
    trx: Db,
    accountId: number,
    event: WebhookEvent,
    orderKey: string,
    now: number,
    payload: Record<string, unknown>,
  ): Promise<number> {
    const url = (await this.urlsOf(trx, accountId))[event];
    if (!url) return 0;
    await this.store.insertMany(trx, "webhook_deliveries", [delivery(accountId, event, orderKey, url, now, payload)]);
    return 1;
  }
}

/** The `error` of a failed message's event, as the status call shows it. */
function failureOf(
  message: Pick<ReportedMessage, "status" | "error_code" | "error_message" | "error_reason" | "carrier_code">,
) {
  if (message.status !== "failed") return {};
  return {
    error: failureReason({
      error_code: message.error_code ?? null,
      error_message: message.error_message ?? null,
      error_reason: message.error_reason ?? null,
      carrier_code: message.carrier_code ?? null,
    }),
  };
}
