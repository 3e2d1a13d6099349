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
import { holdCredits, releaseHold, settleHold } from "../accounts/index.js";
import { type Clock, isoUtc } from "../core/clock.js";
import { MILLI } from "../core/credits.js";
import { parseE164 } from "../core/e164.js";
import { GatewayError } from "../core/errors.js";
import { newQueueId } from "../core/ids.js";
import {
  claimIdempotencyKey,
  forgetPendingKey,
  idempotencyKeyOf,
  messageRow,
  PENDING_ANSWER,
  requestHash,
  SequenceAllocator,
  storedAnswer,
} from "../messages/index.js";
import type { WhatsAppConfig } from "../runtime/config.js";
import type { Metrics } from "../runtime/metrics.js";
import type { Store } from "../store/store.js";
import { WEBHOOKS_QUEUED, type WebhookOutbox } from "../webhooks/outbox.js";
import { publicHostProblem } from "../webhooks/url-guard.js";
import type { TemplateCatalog } from "./catalog.js";
import { GraphError } from "./graph.js";
import { senderOf, type WhatsAppSender, type WhatsAppSettings, whatsAppSettingsOf } from "./settings.js";
import { MEDIA_HEADERS, sendabilityOf } from "./templates.js";
import type { Upstreams, WhatsAppUpstream } from "./upstream.js";
import { windowClosesAt } from "./window.js";

export const MAX_TEXT = 4096;
export const MAX_CAPTION = 1024;
export const MAX_PARAM = 1024;
export const MEDIA_TYPES = ["image", "video", "document", "audio"] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export const HEADER_MEDIA_TYPES = ["image", "video", "document"] as const;
/** One WhatsApp credit per message, in milli-credits. */
const CREDIT = 1 * MILLI;
/** Beyond the upstream time-out: how long a `sending` row may wait before upkeep releases its hold. */
const LEASE_MARGIN_MS = 30_000;

export interface WhatsAppSendRequest {
  to: string | number;
  template?: string;
  params?: Array<string | number>;
  language?: string;
  message?: string;
  media_url?: string;
  media_type?: MediaType;
  caption?: string;
  header_media_url?: string;
  header_media_type?: (typeof HEADER_MEDIA_TYPES)[number];
  header_filename?: string;
  header_params?: Array<string | number>;
}

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
}

/** What goes upstream and what the message row records. */
interface PreparedMessage {
  payload: Record<string, unknown>;
  /** The message as a person would read it (template body with its params, text, or caption). */
  body: string;
  meta: Record<string, unknown>;
}

const TEMPLATE_ONLY = [
  "params",
  "language",
  "header_media_url",
  "header_media_type",
  "header_filename",
  "header_params",
];
const MEDIA_ONLY = ["media_type", "caption"];

export class WhatsAppSendService {
  private readonly ids: SequenceAllocator;

  constructor(private readonly deps: WhatsAppSendDeps) {
    this.ids = new SequenceAllocator(deps.store, "whatsapp_message", 100);
  }

  async send(
    accountId: number,
    request: WhatsAppSendRequest,
    idempotencyHeader?: string | string[],
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
    return this.deliver(settings, sender, upstream, to, prepared, key ? { key, hash } : undefined);
  }

  private async prepare(
    settings: WhatsAppSettings,
    sender: WhatsAppSender,
    to: string,
    request: WhatsAppSendRequest,
  ): Promise<PreparedMessage> {
    const kinds = (["template", "message", "media_url"] as const).filter((k) => request[k] !== undefined);
    if (kinds.length !== 1) {
      throw new GatewayError(
        "invalid_request",
        kinds.length === 0
          ? "Provide one of template, message or media_url."
          : `Provide exactly one of template, message or media_url (got ${kinds.join(" and ")}).`,
      );
    }
    const kind = kinds[0];
    const stray = [...(kind !== "template" ? TEMPLATE_ONLY : []), ...(kind !== "media_url" ? MEDIA_ONLY : [])].filter(
      (field) => (request as unknown as Record<string, unknown>)[field] !== undefined,
    );
    if (stray.length > 0) {
      const owner = TEMPLATE_ONLY.includes(stray[0] ?? "") ? "template" : "media_url";
      throw new GatewayError("invalid_request", `Field "${stray[0]}" goes only with ${owner}.`, { field: stray[0] });
    }
    if (kind === "template") return this.prepareTemplate(settings, sender, to, request);

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

  private async prepareTemplate(
    settings: WhatsAppSettings,
    sender: WhatsAppSender,
    to: string,
    request: WhatsAppSendRequest,
  ): Promise<PreparedMessage> {
    const name = (request.template ?? "").trim();
    const template = await this.deps.catalog.find(settings, sender, name, request.language);
    const sendability = sendabilityOf(template, settings.sandbox);
    if (!sendability.sendable) {
      throw new GatewayError("template_not_sendable", `Template "${name}" cannot be sent: ${sendability.reason}`);
    }
    if (sendability.testOnly && !settings.testNumbers.includes(to)) {
      throw new GatewayError(
        "template_not_sendable",
        `Template "${name}" is restricted to the account's test numbers, and ${to} is not one.`,
      );
    }
    const { shape } = sendability;
    const params = texts(request.params ?? [], "params");
    if (params.length !== shape.paramCount) {
      throw new GatewayError(
        "invalid_request",
        `Template "${name}" (${template.language}) expects ${shape.paramCount} params for {{1}}..{{${shape.paramCount}}}, got ${params.length}.`,
        { field: "params" },
      );
    }
    const components: Record<string, unknown>[] = [];
    const meta: Record<string, unknown> = { type: "template", template: name, language: template.language, params };
    const headerMedia = MEDIA_HEADERS.find((format) => format === shape.headerFormat);
    if (headerMedia) {
      if (request.header_media_url === undefined) {
        throw new GatewayError(
          "invalid_request",
          `Template "${name}" was approved with a ${headerMedia.toLowerCase()} header: header_media_url is required.`,
          { field: "header_media_url" },
        );
      }
      const type = headerMedia.toLowerCase() as (typeof HEADER_MEDIA_TYPES)[number];
      if (request.header_media_type !== undefined && request.header_media_type !== type) {
        throw new GatewayError(
          "invalid_request",
          `Template "${name}" has a ${type} header; header_media_type ${request.header_media_type} does not match it.`,
          { field: "header_media_type" },
        );
      }
      const link = publicHttpsUrl(request.header_media_url, "header_media_url");
      const media: Record<string, unknown> = { link: link.href };
      if (type === "document") media.filename = request.header_filename ?? fileNameOf(link);
      components.push({ type: "header", parameters: [{ type, [type]: media }] });
      meta.header_media_url = link.href;
      meta.header_media_type = type;
    } else {
      for (const field of ["header_media_url", "header_media_type", "header_filename"] as const) {
        if (request[field] !== undefined) {
          throw new GatewayError("invalid_request", `Template "${name}" has no media header; remove ${field}.`, {
            field,
          });
        }
      }
    }
    const headerParams = texts(request.header_params ?? [], "header_params");
    if (headerParams.length !== shape.headerParamCount) {
      throw new GatewayError(
        "invalid_request",
        shape.headerParamCount === 1
          ? `Template "${name}" has a header variable: header_params needs exactly one value.`
          : `Template "${name}" has no header variable; remove header_params.`,
        { field: "header_params" },
      );
    }
    if (headerParams.length === 1) {
      components.push({ type: "header", parameters: [{ type: "text", text: headerParams[0] }] });
      meta.header_params = headerParams;
    }
    if (params.length > 0)
      components.push({ type: "body", parameters: params.map((text) => ({ type: "text", text })) });
    if (shape.codeButtonIndex !== undefined) {
      if (params[0] === undefined) {
        throw new GatewayError("invalid_request", `Template "${name}" needs the code as params[0].`, {
          field: "params",
        });
      }
      components.push({
        type: "button",
        sub_type: "url",
        index: String(shape.codeButtonIndex),
        parameters: [{ type: "text", text: params[0] }],
      });
    }
    return {
      payload: {
        messaging_product: "whatsapp",
        recipient_type: "individual",
        to,
        type: "template",
        template: {
          name,
          language: { code: template.language },
          ...(components.length > 0 ? { components } : {}),
        },
      },
      body: template.body.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => params[Number(n) - 1] ?? whole),
      meta,
    };
  }

  private async deliver(
    settings: WhatsAppSettings,
    sender: WhatsAppSender,
    upstream: WhatsAppUpstream,
    to: string,
    prepared: PreparedMessage,
    idempotency: { key: string; hash: string } | undefined,
  ): Promise<WhatsAppSendResult> {
    const { store, clock, config, metrics } = this.deps;
    const accountId = settings.accountId;
    const now = clock.now().getTime();
    const id = newQueueId(now);
    const numericId = await this.ids.nextNumber();
    const hold = { accountId, wallet: "whatsapp" as const, amount: CREDIT };

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
      if (!(await holdCredits(trx, hold))) {
        throw new GatewayError(
          "insufficient_credits",
          "Insufficient credits: 1 WhatsApp credit is needed per message.",
        );
      }
      await trx
        .insertInto("messages")
        .values(
          messageRow({
            id,
            account_id: accountId,
            channel: "whatsapp",
            broadcast_id: String(numericId),
            recipient: to,
            sender: settings.displayPhoneNumber ?? sender.phoneNumberId,
            body: prepared.body,
            route: "whatsapp",
            lane: 0,
            wallet: "whatsapp",
            credits: CREDIT,
            status: "sending",
            due_at: now,
            lease_until: now + config.timeoutMs + LEASE_MARGIN_MS,
            attempts: 1,
            connector: upstream.name,
            meta: JSON.stringify({ ...prepared.meta, ...(idempotency ? { idempotency_key: idempotency.key } : {}) }),
            created_at: now,
          }),
        )
        .execute();
    });

    let messageId: string;
    try {
      ({ messageId } = await upstream.send(sender, prepared.payload));
    } catch (error) {
      const refusal = refusalOf(error, config.timeoutMs);
      await store.transaction(async (trx) => {
        await releaseHold(trx, hold);
        await trx
          .updateTable("messages")
          .set({
            status: "failed",
            error_code: refusal.upstreamCode,
            error_message: refusal.error.message,
            lease_until: null,
            done_at: clock.now().getTime(),
          })
          .where("id", "=", id)
          .where("status", "=", "sending")
          .execute();
        if (idempotency) await forgetPendingKey(trx, accountId, idempotency.key);
      });
      metrics.messagesFailed.inc({ channel: "whatsapp", stage: "submit" });
      if (refusal.templatesStale) this.deps.catalog.markStale(accountId);
      throw refusal.error;
    }

    const result: WhatsAppSendResult = { message_id: messageId, id: numericId, to };
    const sentAt = clock.now().getTime();
    await store.transaction(async (trx) => {
      await settleHold(trx, clock, { ...hold, kind: "debit", ref: id, note: "WhatsApp message" });
      await trx
        .updateTable("messages")
        .set({ status: "sent", upstream_id: messageId, submitted_at: sentAt, lease_until: null })
        .where("id", "=", id)
        .where("status", "=", "sending")
        .execute();
      if (idempotency) {
        await trx
          .updateTable("idempotency_keys")
          .set({ response: JSON.stringify(result) })
          .where("account_id", "=", accountId)
          .where("key", "=", idempotency.key)
          .execute();
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
            extra: { channel: "whatsapp", id: numericId },
          },
        ],
        sentAt,
      );
    });
    store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
    metrics.messagesAccepted.inc({ channel: "whatsapp" });
    metrics.messagesDispatched.inc({ channel: "whatsapp", connector: upstream.name });
    return result;
  }
}

function recipientOf(raw: string | number): string {
  const parsed = parseE164(String(raw));
  if (!parsed) {
    throw new GatewayError(
      "invalid_recipient",
      `"to" must be a WhatsApp number in digits with its country code, e.g. 919876543210 (got "${String(raw).slice(0, 32)}").`,
      { field: "to" },
    );
  }
  return parsed.digits;
}

function texts(values: ReadonlyArray<string | number>, field: string): string[] {
  return values.map((value, index) => {
    const text = String(value);
    if (text.trim() === "") {
      throw new GatewayError("invalid_request", `${field}[${index}] is empty.`, { field });
    }
    // WhatsApp refuses parameters with line breaks, tabs or more than four spaces in a row.
    if (/[\n\r\t]| {5}/.test(text)) {
      throw new GatewayError(
        "invalid_request",
        `${field}[${index}] contains a line break, a tab or more than four spaces in a row, which WhatsApp refuses in parameters.`,
        { field },
      );
    }
    refuseControls(text, `${field}[${index}]`, field, CONTROLS);
    if ([...text].length > MAX_PARAM) {
      throw new GatewayError("invalid_request", `${field}[${index}] is longer than ${MAX_PARAM} characters.`, {
        field,
      });
    }
    return text;
  });
}

// C0 control characters and DEL: nothing a person writes, and PostgreSQL refuses U+0000 outright.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const CONTROLS = /[\u0000-\u001f\u007f]/;
/** The same, less the tab and line breaks a text message or a caption may carry. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

function refuseControls(text: string, name: string, field: string, controls: RegExp): void {
  const found = controls.exec(text)?.[0];
  if (found === undefined) return;
  const code = `U+${found.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  throw new GatewayError("invalid_request", `${name} contains the control character ${code}.`, { field });
}

function publicHttpsUrl(raw: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GatewayError("invalid_request", `Field "${field}" is not an absolute URL.`, { field });
  }
  if (url.protocol !== "https:") {
    throw new GatewayError("invalid_request", `Field "${field}" must be an https URL WhatsApp can fetch.`, { field });
  }
  const problem = url.username || url.password ? "contains a user name or password" : publicHostProblem(url);
  if (problem) {
    throw new GatewayError("invalid_request", `Field "${field}" must be a public URL; it ${problem}.`, { field });
  }
  return url;
}

/** A Map, not an object: an extension named like a member of Object.prototype (`.constructor`) is no media type. */
const EXTENSIONS = new Map<string, MediaType>([
  ["jpg", "image"],
  ["jpeg", "image"],
  ["png", "image"],
  ["webp", "image"],
  ["mp4", "video"],
  ["3gp", "video"],
  ["mp3", "audio"],
  ["ogg", "audio"],
  ["opus", "audio"],
  ["aac", "audio"],
  ["amr", "audio"],
  ["m4a", "audio"],
]);

/** The media type a URL's extension names; documents otherwise (PDF, spreadsheets, ...). */
function mediaTypeOf(url: URL): MediaType {
  const extension = url.pathname.split(".").pop()?.toLowerCase() ?? "";
  return EXTENSIONS.get(extension) ?? "document";
}

/** The URL's last path segment, decoded; as written when it is not valid percent-encoded UTF-8 (`%E0%A4`). */
function fileNameOf(url: URL): string {
  const encoded = url.pathname.split("/").pop() ?? "";
  let last: string;
  try {
    last = decodeURIComponent(encoded);
  } catch {
    last = encoded;
  }
  return last === "" ? "document" : last.slice(0, 240);
}

interface Refusal {
  error: GatewayError;
  /** Stored on the failed message. */
  upstreamCode: string;
  templatesStale: boolean;
}

/** What the client hears when the upstream did not accept the message. */
function refusalOf(error: unknown, timeoutMs: number): Refusal {
  if (!(error instanceof GraphError)) {
    return {
      error: new GatewayError("upstream_error", "Upstream provider error: the send failed; retry."),
      upstreamCode: "upstream_error",
      templatesStale: false,
    };
  }
  const upstream = {
    kind: error.kind,
    ...(error.httpStatus !== undefined ? { http_status: error.httpStatus } : {}),
    ...(error.code !== undefined ? { code: error.code } : {}),
    ...(error.subcode !== undefined ? { subcode: error.subcode } : {}),
    message: error.message,
    ...(error.details !== undefined ? { details: error.details } : {}),
    ...(error.fbtraceId !== undefined ? { fbtrace_id: error.fbtraceId } : {}),
  };
  const code = String(error.code ?? error.kind);
  switch (error.code) {
    // Re-engagement: WhatsApp counts the window closed (its clock decides).
    case 131047:
      return {
        error: new GatewayError("template_required", undefined, { upstream }),
        upstreamCode: code,
        templatesStale: false,
      };
    // The template or its translation is gone upstream: sync again before the next send.
    case 132001:
      return {
        error: new GatewayError("template_not_found", `Template not found or not approved upstream: ${error.message}`, {
          upstream,
        }),
        upstreamCode: code,
        templatesStale: true,
      };
    // Paused or disabled upstream since the last sync.
    case 132015:
    case 132016:
      return {
        error: new GatewayError("template_not_sendable", `The template cannot be sent: ${error.message}`, { upstream }),
        upstreamCode: code,
        templatesStale: true,
      };
    // A test number may message only its allowed list.
    case 131030:
      return {
        error: new GatewayError("invalid_recipient", `The recipient is not allowed for this sender: ${error.message}`, {
          field: "to",
          upstream,
        }),
        upstreamCode: code,
        templatesStale: false,
      };
  }
  const message =
    error.kind === "timeout"
      ? `Upstream provider error: WhatsApp did not answer within ${timeoutMs} ms; nothing was charged. Retry with the same Idempotency-Key.`
      : error.kind === "network"
        ? `Upstream provider error: WhatsApp could not be reached (${error.message}); nothing was charged. Retry.`
        : `Upstream provider error: ${error.message}; nothing was charged.`;
  return {
    error: new GatewayError("upstream_error", message, { upstream }),
    upstreamCode: code,
    templatesStale: false,
  };
}
