// POST /api/v2/whatsapp/send: checks a send in the order the spec's error table implies
// (module, business account, recipient, template or window, credits), then calls the upstream
// synchronously. The credit is held while the call is in flight and debited only when the
// upstream accepted; a refusal, a time-out or a crash releases it, so nothing is charged.
//
//   T1: hold 1 credit, message row `sending` (its lease is the hold's deadline)
//   upstream call
//   T2: accepted → debit, `sent`, upstream id, delivery_report event
//       refused  → release, `failed` with the upstream error
import type { Logger } from "pino";
import { type Clock, isoUtc } from "../../base/core/clock.js";
import { MILLI } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { newQueueId } from "../../base/core/ids.js";
import type { WhatsAppConfig } from "../../base/runtime/config.js";
import type { Metrics } from "../../base/runtime/metrics.js";
import type { Store } from "../../base/store/store.js";
import {
  encodeUpline,
  holdCredits,
  type PriceBook,
  releaseHold,
  settleHold,
  usernamesOf,
} from "../../domain/accounts/index.js";
import {
  claimIdempotencyKey,
  failSendingMessage,
  forgetPendingKey,
  idempotencyKeyOf,
  insertWhatsAppMessage,
  markWhatsAppSent,
  messageRow,
  PENDING_ANSWER,
  requestHash,
  SequenceAllocator,
  shortLevel,
  storedAnswer,
  storeIdempotentAnswer,
} from "../../domain/messages/index.js";
import { WEBHOOKS_QUEUED, type WebhookOutbox } from "../../domain/webhooks/outbox.js";
import type { TemplateCatalog } from "./catalog.js";
import type { WhatsAppEvents } from "./events.js";
import { refusalOf } from "./send-refusal.js";
import {
  CONTROLS_BUT_LINES,
  fileNameOf,
  kindOf,
  MAX_CAPTION,
  MAX_TEXT,
  mediaTypeOf,
  type PreparedMessage,
  publicHttpsUrl,
  recipientOf,
  refuseControls,
  type WhatsAppSendRequest,
} from "./send-request.js";
import { prepareTemplate } from "./send-template.js";
import { senderOf, type WhatsAppSender, type WhatsAppSettings, whatsAppSettingsOf } from "./settings.js";
import type { Upstreams, WhatsAppUpstream } from "./upstream.js";
import { windowClosesAt } from "./window.js";

/** One WhatsApp credit per message, in milli-credits. */
const CREDIT = 1 * MILLI;
/** Beyond the upstream time-out: how long a `sending` row may wait before upkeep releases its hold. */
const LEASE_MARGIN_MS = 30_000;

export interface WhatsAppSendResult {
  message_id: string;
  id: number;
  to: string;
}

export interface WhatsAppSendDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  webhooks: WebhookOutbox;
  config: WhatsAppConfig;
  upstreams: Upstreams;
  catalog: TemplateCatalog;
  /** Applies the statuses Meta sent before a send recorded their wamid (decision 0191). */
  events: Pick<WhatsAppEvents, "applyKept">;
  prices?: Pick<PriceBook, "cardFor">;
}

/**
 * What another service's send adds (a fallback chain's step, channels/chains/): meta for the
 * message row, and a call with its queue id once the row is stored, before the upstream answers
 * (so a refused send's failed row is known too).
 */
export interface LinkedSend {
  meta: Record<string, unknown>;
  stored: (queueId: string) => void;
}

export class WhatsAppSendService {
  private readonly ids: SequenceAllocator;

  constructor(private readonly deps: WhatsAppSendDeps) {
    this.ids = new SequenceAllocator(deps.store, "whatsapp_message", 100);
  }

  async send(
    accountId: number,
    request: WhatsAppSendRequest,
    idempotencyHeader?: string | string[],
    linked?: LinkedSend,
  ): Promise<WhatsAppSendResult> {
    const { store } = this.deps;
    const settings = await whatsAppSettingsOf(store.db, accountId, this.deps.config.connector);
    if (!settings.enabled) throw new GatewayError("module_disabled");
    const sender = senderOf(settings);
    if (!sender) {
      throw new GatewayError(
        "no_business_account",
        "No business account connected: the account's WhatsApp phone number id, WABA id and access token must all be set.",
      );
    }
    const to = recipientOf(request.to);
    const key = idempotencyKeyOf(idempotencyHeader);
    const hash = key ? requestHash("whatsapp.send", request) : "";
    if (key) {
      const stored = (await storedAnswer(store.db, accountId, key, hash)) as WhatsAppSendResult | undefined;
      if (stored) return stored;
    }
    const prepared = await this.prepare(settings, sender, to, request);
    const upstream = this.deps.upstreams[settings.connector];
    const idempotency = key ? { key, hash } : undefined;
    return (await this.deliver(settings, sender, upstream, to, prepared, prepared, idempotency, linked)).result;
  }

  /**
   * A send that carries a secret (a verification code) among its template's params: the upstream
   * gets it, the message row holds it masked (each character `•`) in its body and meta. Answers
   * the message's queue id too.
   */
  async sendSecret(
    accountId: number,
    request: WhatsAppSendRequest,
    secret: string,
  ): Promise<WhatsAppSendResult & { queueId: string }> {
    const { store } = this.deps;
    const settings = await whatsAppSettingsOf(store.db, accountId, this.deps.config.connector);
    const sender = senderOf(settings);
    if (!settings.enabled || !sender)
      throw new GatewayError(settings.enabled ? "no_business_account" : "module_disabled");
    const to = recipientOf(request.to);
    const prepared = await this.prepare(settings, sender, to, request);
    const mask = (text: string) => text.split(secret).join("\u2022".repeat(secret.length));
    const stored = { ...prepared, body: mask(prepared.body), meta: JSON.parse(mask(JSON.stringify(prepared.meta))) };
    const { id, result } = await this.deliver(
      settings,
      sender,
      this.deps.upstreams[settings.connector],
      to,
      prepared,
      stored,
    );
    return { ...result, queueId: id };
  }

  /** Whether the account can send WhatsApp messages at all (module on, business account connected). */
  async ready(accountId: number): Promise<boolean> {
    const settings = await whatsAppSettingsOf(this.deps.store.db, accountId, this.deps.config.connector);
    return settings.enabled && senderOf(settings) !== undefined;
  }

  private async prepare(
    settings: WhatsAppSettings,
    sender: WhatsAppSender,
    to: string,
    request: WhatsAppSendRequest,
  ): Promise<PreparedMessage> {
    const kind = kindOf(request);
    if (kind === "template") return prepareTemplate(this.deps.catalog, settings, sender, to, request);

    // Free text and media need the customer's 24-hour window.
    if (settings.sandbox && !settings.testNumbers.includes(to)) {
      throw new GatewayError(
        "invalid_recipient",
        `This account's sender is a test number: it can message only its test numbers, and ${to} is not one.`,
        { field: "to" },
      );
    }
    const base = { messaging_product: "whatsapp", recipient_type: "individual", to };
    let prepared: PreparedMessage;
    if (kind === "message") {
      const text = request.message ?? "";
      if (text.trim() === "")
        throw new GatewayError("invalid_request", 'Field "message" is empty.', { field: "message" });
      refuseControls(text, 'Field "message"', "message", CONTROLS_BUT_LINES);
      if ([...text].length > MAX_TEXT) {
        throw new GatewayError("invalid_request", `Field "message" is longer than ${MAX_TEXT} characters.`, {
          field: "message",
        });
      }
      prepared = {
        payload: { ...base, type: "text", text: { body: text, preview_url: /https?:\/\//i.test(text) } },
        body: text,
        meta: { type: "text" },
      };
    } else {
      const link = publicHttpsUrl(request.media_url ?? "", "media_url");
      const type = request.media_type ?? mediaTypeOf(link);
      const caption = request.caption;
      if (caption !== undefined && type === "audio") {
        throw new GatewayError("invalid_request", "Audio messages carry no caption.", { field: "caption" });
      }
      if (caption !== undefined) refuseControls(caption, 'Field "caption"', "caption", CONTROLS_BUT_LINES);
      if (caption !== undefined && [...caption].length > MAX_CAPTION) {
        throw new GatewayError("invalid_request", `Field "caption" is longer than ${MAX_CAPTION} characters.`, {
          field: "caption",
        });
      }
      const media: Record<string, unknown> = { link: link.href };
      if (caption !== undefined) media.caption = caption;
      if (type === "document") media.filename = fileNameOf(link);
      prepared = {
        payload: { ...base, type, [type]: media },
        body: caption ?? link.href,
        meta: { type: "media", media_type: type, media_url: link.href, ...(caption !== undefined ? { caption } : {}) },
      };
    }
    const closes = await windowClosesAt(this.deps.store.db, settings.accountId, to);
    const now = this.deps.clock.now().getTime();
    if (closes === undefined || now >= closes) {
      throw new GatewayError(
        "template_required",
        closes === undefined
          ? `${to} has not messaged this account, so no 24-hour window is open: send a template instead.`
          : `The 24-hour window with ${to} closed at ${isoUtc(new Date(closes))}: send a template instead.`,
      );
    }
    return prepared;
  }

  private async deliver(
    settings: WhatsAppSettings,
    sender: WhatsAppSender,
    upstream: WhatsAppUpstream,
    to: string,
    prepared: PreparedMessage,
    /** What the message row records: `prepared`, or it with a secret masked. */
    stored: Pick<PreparedMessage, "body" | "meta">,
    idempotency?: { key: string; hash: string },
    /** A fallback chain's step: its link in the message's meta, told the message's id once stored. */
    linked?: LinkedSend,
  ): Promise<{ id: string; result: WhatsAppSendResult }> {
    const { store, clock, config, metrics } = this.deps;
    const accountId = settings.accountId;
    const now = clock.now().getTime();
    const id = newQueueId(now);
    const numericId = await this.ids.nextNumber();
    const hold = { accountId, wallet: "whatsapp" as const, amount: CREDIT };
    // A sub-account's message is held at every level, each at the fixed price, and charged at each.
    const upline = (await this.deps.prices?.cardFor(accountId))?.upline ?? [];
    const holds = [hold, ...upline.map((id) => ({ ...hold, accountId: id }))];

    await store.transaction(async (trx) => {
      if (idempotency) {
        // Claims the key: a concurrent retry finds it and waits for this answer instead of sending again.
        const claimed = await claimIdempotencyKey(trx, {
          accountId,
          key: idempotency.key,
          requestHash: idempotency.hash,
          response: PENDING_ANSWER,
          now,
        });
        if (!claimed)
          throw new GatewayError("conflict", "A request with this Idempotency-Key is in progress; retry it shortly.");
      }
      // A level short of the credit throws: the transaction takes back the holds before it.
      for (const level of holds) {
        if (await holdCredits(trx, level)) continue;
        const error = new GatewayError(
          "insufficient_credits",
          "Insufficient credits: 1 WhatsApp credit is needed per message.",
        );
        // Which level is short, in the log of refusals: an ancestor to the operator and the levels
        // at or above it only (decision 0158), the account's own wallet to every reader (0192).
        error.upline = await shortLevel(trx, upline, level);
        throw error;
      }
      await insertWhatsAppMessage(
        this.deps.store,
        trx,
        messageRow({
          id,
          account_id: accountId,
          channel: "whatsapp",
          broadcast_id: String(numericId),
          recipient: to,
          sender: settings.displayPhoneNumber ?? sender.phoneNumberId,
          body: stored.body,
          route: "whatsapp",
          lane: 0,
          wallet: "whatsapp",
          credits: CREDIT,
          upline:
            upline.length > 0
              ? encodeUpline(
                  upline,
                  upline.map(() => CREDIT),
                )
              : null,
          status: "sending",
          due_at: now,
          lease_until: now + config.timeoutMs + LEASE_MARGIN_MS,
          attempts: 1,
          connector: upstream.name,
          meta: JSON.stringify({
            ...stored.meta,
            ...linked?.meta,
            ...(idempotency ? { idempotency_key: idempotency.key } : {}),
          }),
          created_at: now,
        }),
      );
    });

    linked?.stored(id);
    let messageId: string;
    try {
      ({ messageId } = await upstream.send(sender, prepared.payload));
    } catch (error) {
      const refusal = refusalOf(error, config.timeoutMs);
      await store.transaction(async (trx) => {
        for (const level of holds) await releaseHold(trx, level);
        await failSendingMessage(this.deps.store, trx, id, {
          code: refusal.upstreamCode,
          message: refusal.error.message,
          at: clock.now().getTime(),
        });
        if (idempotency) await forgetPendingKey(trx, accountId, idempotency.key);
      });
      metrics.messagesFailed.inc({ channel: "whatsapp", stage: "submit" });
      if (refusal.templatesStale) this.deps.catalog.markStale(accountId);
      throw refusal.error;
    }

    const result: WhatsAppSendResult = { message_id: messageId, id: numericId, to };
    const sentAt = clock.now().getTime();
    await store.transaction(async (trx) => {
      // The ancestors' entries name the sub-account by its username, as their ledgers read it.
      const name = upline.length > 0 ? (await usernamesOf(trx, [accountId])).get(accountId) : undefined;
      for (const level of holds) {
        const note = level === hold ? "WhatsApp message" : `WhatsApp message of sub-account ${name ?? accountId}`;
        await settleHold(trx, clock, { ...level, kind: "debit", ref: id, note });
      }
      await markWhatsAppSent(trx, id, messageId, sentAt);
      if (idempotency) {
        await storeIdempotentAnswer(trx, accountId, idempotency.key, JSON.stringify(result));
      }
      await this.deps.webhooks.deliveryReports(
        trx,
        [
          {
            id,
            account_id: accountId,
            recipient: to,
            status: "sent",
            at: sentAt,
            messageId,
            broadcast_id: String(numericId),
            extra: { channel: "whatsapp", id: numericId },
          },
        ],
        sentAt,
      );
    });
    store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
    // Meta's statuses that came before this commit were kept: they apply now (or by upkeep).
    await this.deps.events
      .applyKept([messageId])
      .catch((error: unknown) => this.deps.logger.error({ err: error }, "applying kept WhatsApp statuses failed"));
    metrics.messagesAccepted.inc({ channel: "whatsapp" });
    metrics.messagesDispatched.inc({ channel: "whatsapp", connector: upstream.name });
    return { id, result };
  }
}
