// What WhatsApp tells us after a send: message statuses, customers' messages (which open the
// 24-hour window) and template status changes. Meta's webhook and the simulator both end here.
//
// A message's status only moves forward: sent → delivered → read, or to failed from sent or
// delivered. Each move is one conditional UPDATE whose WHERE lists the states it may leave,
// so a late or repeated event changes nothing; a `delivered` after `read` only records its time.
// A status for a wamid no message carries yet is kept in the database before Meta hears its 200
// (early-statuses.ts, decision 0191) and applied once a message does: when the send records the
// wamid, by a quick retry from memory (the record usually lands within a second), or by upkeep.
import type { Logger } from "pino";
import type { Clock } from "../../base/core/clock.js";
import type { Metrics } from "../../base/runtime/metrics.js";
import type { Db, Store } from "../../base/store/store.js";
import {
  deliverWhatsAppMessage,
  failWhatsAppMessage,
  knownWhatsAppUpstreamIds,
  RollupChanges,
  readWhatsAppMessage,
  whatsAppMessageByUpstreamId,
} from "../../domain/messages/index.js";
import {
  type InboundWhatsAppEvent,
  inboundWhatsAppPayload,
  type ReportedMessage,
} from "../../domain/webhooks/events.js";
import { WEBHOOKS_QUEUED, type WebhookOutbox } from "../../domain/webhooks/outbox.js";
import {
  dropExpiredEarlyStatuses,
  EARLY_STATUSES_PAGE,
  type EarlyStatusKey,
  forgetEarlyStatuses,
  hasEarlyStatuses,
  KEEP_EARLY_STATUSES_MS,
  keepEarlyStatuses,
  keptStatuses,
  MAX_KEPT_EARLY_STATUSES,
} from "./early-statuses.js";
import type { InboundMessageEvent, ParsedMetaWebhook, StatusEvent, TemplateStatusEvent } from "./meta-webhook.js";
import { accountOfPhoneNumber } from "./settings.js";
import { applyTemplateStatus } from "./templates.js";
import { recordCustomerMessage } from "./window.js";

export interface WhatsAppEventDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  webhooks: WebhookOutbox;
  /** Statuses of unknown wamids kept at most (MAX_KEPT_EARLY_STATUSES unless given). */
  maxKeptStatuses?: number;
}

/**
 * Delays before kept statuses are tried again from memory (their send may not have committed):
 * for latency only, since the send that records the wamid and upkeep apply them too.
 */
const KEPT_RETRY_MS = [1_000, 5_000];

interface MovedMessage {
  id: string;
  account_id: number;
  recipient: string;
  broadcast_id: string;
  upstream_id: string | null;
}

export class WhatsAppEvents {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  private readonly maxKept: number;

  constructor(private readonly deps: WhatsAppEventDeps) {
    this.maxKept = deps.maxKeptStatuses ?? MAX_KEPT_EARLY_STATUSES;
  }

  /** Applies one callback's events; resolves once they are stored. */
  async apply(parsed: ParsedMetaWebhook): Promise<void> {
    if (parsed.statuses.length > 0) await this.applyStatuses(parsed.statuses);
    if (parsed.messages.length > 0) await this.applyInbound(parsed.messages);
    for (const change of parsed.templates) await this.applyTemplate(change);
  }

  /**
   * Applies Meta's statuses; those of wamids no message carries yet are kept (the oldest kept
   * dropped past maxKeptStatuses). Resolves once stored.
   */
  async applyStatuses(events: readonly StatusEvent[]): Promise<void> {
    const { unknown, dropped } = await this.move(events, "keep");
    if (dropped.length > 0) {
      this.deps.metrics.earlyReportsDropped.inc({ reason: "whatsapp_over_limit" }, dropped.length);
      this.deps.logger.warn(
        { count: dropped.length, ids: dropped.slice(0, 5).map((e) => e.messageId), max: this.maxKept },
        "kept WhatsApp statuses dropped, oldest first: at most max are kept for wamids no message carries yet",
      );
    }
    if (unknown.length > 0) this.retryKept([...new Set(unknown.map((e) => e.messageId))], 0);
  }

  /**
   * Applies the kept statuses of `messageIds` (all kept ones when not given) whose wamid a message
   * now carries, and forgets them; the others stay kept. Answers how many found their message
   * (`applied`) and the wamids of those it read that are still kept (`left`).
   */
  async applyKept(messageIds?: readonly string[]): Promise<{ applied: number; left: string[] }> {
    const { store } = this.deps;
    let applied = 0;
    const left = new Set<string>();
    let after: EarlyStatusKey | undefined;
    for (;;) {
      const page = await keptStatuses(store.db, { ...(messageIds ? { messageIds } : {}), ...(after ? { after } : {}) });
      // Looked up first, outside a transaction: a look that finds only unknown wamids writes nothing.
      const carried = await knownWhatsAppUpstreamIds(store.db, [...new Set(page.map((event) => event.messageId))]);
      const known = page.filter((event) => carried.has(event.messageId));
      for (const event of page) if (!carried.has(event.messageId)) left.add(event.messageId);
      if (known.length > 0) {
        const unknown = (await this.move(known, "forget")).unknown;
        applied += known.length - unknown.length;
        for (const event of unknown) left.add(event.messageId);
      }
      const last = page.at(-1);
      if (page.length < EARLY_STATUSES_PAGE || !last) return { applied, left: [...left] };
      after = { messageId: last.messageId, status: last.status };
    }
  }

  /** Drops the statuses kept past KEEP_EARLY_STATUSES_MS whose wamid no message took; answers how many. */
  async dropExpired(): Promise<number> {
    const { store, clock, logger, metrics } = this.deps;
    if (!(await hasEarlyStatuses(store.db))) return 0;
    const keptBefore = clock.now().getTime() - KEEP_EARLY_STATUSES_MS;
    let dropped = 0;
    for (;;) {
      const gone = await dropExpiredEarlyStatuses(store.db, keptBefore);
      if (gone.length === 0) return dropped;
      dropped += gone.length;
      metrics.earlyReportsDropped.inc({ reason: "whatsapp_expired" }, gone.length);
      logger.warn(
        { count: gone.length, ids: gone.slice(0, 5).map((e) => e.messageId) },
        "WhatsApp statuses for messages this gateway did not send; ignored",
      );
    }
  }

  /**
   * Moves the messages `events` name, with their delivery_report events, in one transaction.
   * Events of wamids no message carries are kept ("keep": Meta's) or left kept ("forget": kept
   * ones, forgotten once applied); answers them (`unknown`), and the kept ones dropped to make room.
   */
  private async move(
    events: readonly StatusEvent[],
    kept: "keep" | "forget",
  ): Promise<{ unknown: StatusEvent[]; dropped: EarlyStatusKey[] }> {
    const { store, clock, webhooks } = this.deps;
    const now = clock.now().getTime();
    const unknown: StatusEvent[] = [];
    const reported: ReportedMessage[] = [];
    let dropped: EarlyStatusKey[] = [];
    await store.transaction(async (trx) => {
      unknown.length = 0;
      reported.length = 0;
      dropped = [];
      const applied: EarlyStatusKey[] = [];
      // The events' changes to the delivery rollups, written last, once.
      const rollups = new RollupChanges();
      for (const event of events) {
        // `sent` is what the send itself recorded; Meta's copy of it changes nothing.
        if (event.status === "sent") continue;
        const found = await whatsAppMessageByUpstreamId(trx, event.messageId);
        if (!found) {
          unknown.push(event);
          continue;
        }
        applied.push({ messageId: event.messageId, status: event.status });
        const moved = await moveMessage(store, trx, found.id, event, rollups);
        if (moved) reported.push(reportOf(moved, event));
      }
      if (kept === "keep" && unknown.length > 0) {
        dropped = await keepEarlyStatuses(trx, unknown, now, { engine: store.engine, max: this.maxKept });
      }
      if (kept === "forget" && applied.length > 0) await forgetEarlyStatuses(trx, applied);
      if (reported.length > 0) await webhooks.deliveryReports(trx, reported, now);
      await rollups.write(store, trx);
    });
    for (const message of reported) {
      if (message.status === "failed") this.deps.metrics.messagesFailed.inc({ channel: "whatsapp", stage: "delivery" });
      if (message.status === "delivered") this.deps.metrics.messagesDelivered.inc({ channel: "whatsapp" });
    }
    if (reported.length > 0) store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
    return { unknown, dropped };
  }

  /** Tries kept statuses again from memory, at KEPT_RETRY_MS, while some are still kept. */
  private retryKept(messageIds: string[], round: number): void {
    const delay = KEPT_RETRY_MS[round];
    if (delay === undefined || this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.applyKept(messageIds)
        .then(({ left }) => {
          if (left.length > 0) this.retryKept(left, round + 1);
        })
        .catch((error: unknown) => this.deps.logger.error({ err: error }, "applying kept WhatsApp statuses failed"));
    }, delay);
    timer.unref?.();
    this.timers.add(timer);
  }

  async applyInbound(events: readonly InboundMessageEvent[]): Promise<number> {
    const { store, clock, webhooks, logger } = this.deps;
    const now = clock.now().getTime();
    const accounts = new Map<string, number | undefined>();
    for (const event of events) {
      if (!accounts.has(event.phoneNumberId)) {
        accounts.set(event.phoneNumberId, await accountOfPhoneNumber(store.db, event.phoneNumberId));
      }
    }
    let stored = 0;
    await store.transaction(async (trx) => {
      for (const event of events) {
        const accountId = accounts.get(event.phoneNumberId);
        if (accountId === undefined) {
          logger.warn({ phoneNumberId: event.phoneNumberId }, "WhatsApp message to a phone number no account has");
          continue;
        }
        // Meta's time, but never ahead of ours: the window must not outlive 24 hours by clock skew.
        const at = Math.min(event.at, now);
        const inserted = await trx
          .insertInto("whatsapp_inbound")
          .values({
            account_id: accountId,
            upstream_id: event.messageId,
            from_number: event.from,
            to_number: event.displayPhoneNumber || event.phoneNumberId,
            type: event.type,
            text: event.text ?? null,
            media_id: event.mediaId ?? null,
            received_at: at,
            created_at: now,
          })
          .onConflict((oc) => oc.column("upstream_id").doNothing())
          .returning("id")
          .executeTakeFirst();
        // Meta delivers a callback again when our answer was late: the repeat is stored once.
        if (!inserted) continue;
        stored++;
        await recordCustomerMessage(trx, accountId, event.from, at);
        await webhooks.enqueue(
          trx,
          accountId,
          "inbound_whatsapp",
          `wa:${event.from}`,
          now,
          inboundWhatsAppPayload(inboundEvent(accountId, event, at)),
        );
      }
    });
    if (stored > 0) store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
    return stored;
  }

  private async applyTemplate(change: TemplateStatusEvent): Promise<void> {
    const db = this.deps.store.db;
    const accounts = await db
      .selectFrom("whatsapp_accounts")
      .select("account_id")
      .where("waba_id", "=", change.wabaId)
      .execute();
    for (const { account_id } of accounts) {
      const changed = await applyTemplateStatus(db, account_id, change);
      // A template this account has not synced yet (newly approved): sync on the next look.
      if (!changed) {
        await db
          .updateTable("whatsapp_accounts")
          .set({ templates_synced_at: null })
          .where("account_id", "=", account_id)
          .execute();
      }
    }
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

async function moveMessage(
  store: Store,
  trx: Db,
  id: string,
  event: StatusEvent,
  rollups: RollupChanges,
): Promise<MovedMessage | undefined> {
  if (event.status === "delivered") return deliverWhatsAppMessage(store, trx, id, event.at, rollups);
  if (event.status === "read") return readWhatsAppMessage(store, trx, id, event.at, rollups);
  const error = event.errors[0];
  return failWhatsAppMessage(
    store,
    trx,
    id,
    {
      code: error ? String(error.code) : "failed",
      message: error ? describeMetaError(error) : UNEXPLAINED_FAILURE,
      at: event.at,
    },
    rollups,
  );
}

const UNEXPLAINED_FAILURE = "WhatsApp reported the message failed without a reason.";

export function describeMetaError(error: {
  title: string;
  message?: string | undefined;
  details?: string | undefined;
}) {
  const head = error.message && error.message !== error.title ? `${error.title}: ${error.message}` : error.title;
  return error.details ? `${head} (${error.details})` : head;
}

function reportOf(message: MovedMessage, event: StatusEvent): ReportedMessage {
  const error = event.errors[0];
  return {
    id: message.id,
    account_id: message.account_id,
    recipient: message.recipient,
    status: event.status,
    at: event.at,
    messageId: message.upstream_id ?? message.id,
    broadcast_id: message.broadcast_id,
    extra: {
      channel: "whatsapp",
      id: Number(message.broadcast_id),
      ...(event.status === "failed"
        ? {
            error: {
              code: error?.code ?? null,
              title: error?.title ?? null,
              details: error?.details ?? null,
              message: error ? describeMetaError(error) : UNEXPLAINED_FAILURE,
            },
          }
        : {}),
    },
  };
}

function inboundEvent(accountId: number, event: InboundMessageEvent, at: number): InboundWhatsAppEvent {
  return {
    accountId,
    from: event.from,
    to: event.displayPhoneNumber || event.phoneNumberId,
    message: event.text ?? "",
    type: event.type,
    messageId: event.messageId,
    mediaId: event.mediaId,
    profileName: event.profileName,
    receivedAt: at,
  };
}
