// Meta's WhatsApp webhook: the X-Hub-Signature-256 check and the reading of a callback body into
// message statuses, inbound messages and template status changes. Nothing in a callback is
// trusted to have the type Meta documents; what cannot be read is counted, never thrown.
import { createHmac, timingSafeEqual } from "node:crypto";

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/** X-Hub-Signature-256: "sha256=" + hex HMAC-SHA256 of the raw body under the app secret. */
export function verifyMetaSignature(rawBody: Buffer, header: string | undefined, appSecret: string): boolean {
  // An empty secret is one every sender knows.
  if (!appSecret || typeof header !== "string") return false;
  const match = SIGNATURE.exec(header.trim());
  if (!match) return false;
  const expected = createHmac("sha256", appSecret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(match[1]!, "hex"), expected);
}

export function signMetaPayload(rawBody: Buffer | string, appSecret: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(rawBody).digest("hex")}`;
}

export interface MetaError {
  code: number;
  title: string;
  message?: string;
  /** error_data.details */
  details?: string;
}

export interface StatusEvent {
  /** value.metadata.phone_number_id */
  phoneNumberId: string;
  /** The wamid the send was answered with. */
  messageId: string;
  status: "sent" | "delivered" | "read" | "failed";
  /** Milliseconds; Meta gives unix seconds. */
  at: number;
  recipientId: string;
  errors: MetaError[];
  /** pricing.category (marketing, utility, authentication, service, ...) when Meta says it. */
  pricingCategory?: string;
  /** pricing.billable */
  billable?: boolean;
  /** The biz_opaque_callback_data the send carried, echoed back. */
  bizOpaqueCallbackData?: string;
}

export interface InboundMessageEvent {
  phoneNumberId: string;
  displayPhoneNumber: string;
  messageId: string;
  /** The sender's wa_id: digits with country code, no "+". */
  from: string;
  /** Milliseconds. */
  at: number;
  /** text, image, video, document, audio, sticker, button, interactive, reaction, location, contacts, unsupported, ... */
  type: string;
  /** text.body, a media caption, button.text, the chosen reply's title, or a reaction's emoji. */
  text?: string;
  /** The media id of image, video, document, audio and sticker messages. */
  mediaId?: string;
  /** button.payload, or the id of the chosen interactive reply. */
  payload?: string;
  /** The message this one replies or reacts to (context.id, reaction.message_id). */
  contextMessageId?: string;
  profileName?: string;
}

export interface TemplateStatusEvent {
  /** entry.id */
  wabaId: string;
  templateId: string;
  name: string;
  language: string;
  /** APPROVED, REJECTED, PAUSED, DISABLED, PENDING_DELETION, FLAGGED, REINSTATED, ... */
  event: string;
  /** Meta's reason; its "NONE" is left out. */
  reason?: string;
}

export interface ParsedMetaWebhook {
  statuses: StatusEvent[];
  messages: InboundMessageEvent[];
  templates: TemplateStatusEvent[];
  /** Entries, changes and items that were malformed or of a kind not handled here. */
  ignored: number;
}

export class MetaWebhookError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MetaWebhookError";
  }
}

const STATUSES = new Set<string>(["sent", "delivered", "read", "failed"]);

/**
 * The longest value of each kind a callback may carry, past what Meta sends (a wamid is about 60
 * characters, a text body at most 4,096): an id, number or name longer than its bound makes its
 * item unreadable (an over-long id would not even fit an index), over-long text is left out, and
 * an error's or a template's description is cut.
 */
const ID_MAX = 200;
const NUMBER_MAX = 64;
const NAME_MAX = 512;
const TEXT_MAX = 4_096;
const PROSE_MAX = 1_024;
const MEDIA_TYPES = new Set(["image", "video", "document", "audio", "sticker"]);

/** Reads a callback body (already JSON-parsed), keeping document order within each list. */
export function parseMetaWebhook(body: unknown): ParsedMetaWebhook {
  if (!isRecord(body) || body.object !== "whatsapp_business_account" || !Array.isArray(body.entry)) {
    throw new MetaWebhookError(
      'Not a WhatsApp callback: expected {"object":"whatsapp_business_account","entry":[...]}',
    );
  }
  const parsed: ParsedMetaWebhook = { statuses: [], messages: [], templates: [], ignored: 0 };
  for (const entry of body.entry) {
    if (!isRecord(entry) || !Array.isArray(entry.changes)) {
      parsed.ignored++;
      continue;
    }
    for (const change of entry.changes) {
      if (!isRecord(change) || !isRecord(change.value)) parsed.ignored++;
      else if (change.field === "messages") readMessagesChange(change.value, parsed);
      else if (change.field === "message_template_status_update") {
        const template = readTemplateStatus(text(entry.id, ID_MAX), change.value);
        if (template) parsed.templates.push(template);
        else parsed.ignored++;
      } else parsed.ignored++;
    }
  }
  return parsed;
}

function readMessagesChange(value: Record<string, unknown>, parsed: ParsedMetaWebhook): void {
  const statuses = Array.isArray(value.statuses) ? value.statuses : [];
  const messages = Array.isArray(value.messages) ? value.messages : [];
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const phoneNumberId = text(metadata.phone_number_id, ID_MAX);
  // Errors Meta reports outside any message (value.errors) have nothing to attach to.
  const stray = Array.isArray(value.errors) ? value.errors.length : 0;
  if (!phoneNumberId || statuses.length + messages.length === 0) {
    parsed.ignored += Math.max(1, statuses.length + messages.length + stray);
    return;
  }
  parsed.ignored += stray;
  for (const item of statuses) {
    const status = readStatus(phoneNumberId, item);
    if (status) parsed.statuses.push(status);
    else parsed.ignored++;
  }
  const contacts = Array.isArray(value.contacts) ? value.contacts.filter(isRecord) : [];
  const displayPhoneNumber = text(metadata.display_phone_number, NUMBER_MAX) ?? "";
  for (const item of messages) {
    const message = readMessage(phoneNumberId, displayPhoneNumber, contacts, item);
    if (message) parsed.messages.push(message);
    else parsed.ignored++;
  }
}

function readStatus(phoneNumberId: string, item: unknown): StatusEvent | undefined {
  if (!isRecord(item)) return undefined;
  const messageId = text(item.id, ID_MAX);
  const status = text(item.status, NAME_MAX);
  const at = millis(item.timestamp);
  const recipientId = text(item.recipient_id, ID_MAX);
  if (!messageId || !status || !STATUSES.has(status) || at === undefined || !recipientId) return undefined;
  const pricing = isRecord(item.pricing) ? item.pricing : {};
  return withoutUndefined({
    phoneNumberId,
    messageId,
    status: status as StatusEvent["status"],
    at,
    recipientId,
    errors: Array.isArray(item.errors) ? item.errors.flatMap(readError) : [],
    pricingCategory: text(pricing.category, NAME_MAX),
    billable: typeof pricing.billable === "boolean" ? pricing.billable : undefined,
    bizOpaqueCallbackData: text(item.biz_opaque_callback_data, NAME_MAX),
  });
}

function readError(item: unknown): MetaError[] {
  if (!isRecord(item) || typeof item.code !== "number" || !Number.isInteger(item.code)) return [];
  const message = prose(item.message);
  const details = isRecord(item.error_data) ? prose(item.error_data.details) : undefined;
  return [withoutUndefined({ code: item.code, title: prose(item.title) ?? message ?? "", message, details })];
}

function readMessage(
  phoneNumberId: string,
  displayPhoneNumber: string,
  contacts: Record<string, unknown>[],
  item: unknown,
): InboundMessageEvent | undefined {
  if (!isRecord(item)) return undefined;
  const messageId = text(item.id, ID_MAX);
  const from = text(item.from, NUMBER_MAX);
  const at = millis(item.timestamp);
  const type = text(item.type, NAME_MAX);
  if (!messageId || !from || at === undefined || !type) return undefined;
  const contact = contacts.find((c) => c.wa_id === from);
  const profileName = contact && isRecord(contact.profile) ? text(contact.profile.name, NAME_MAX) : undefined;
  const replyTo = isRecord(item.context) ? text(item.context.id, ID_MAX) : undefined;
  return withoutUndefined({
    phoneNumberId,
    displayPhoneNumber,
    messageId,
    from,
    at,
    type,
    ...readContent(type, Object.hasOwn(item, type) && isRecord(item[type]) ? item[type] : {}),
    ...(replyTo ? { contextMessageId: replyTo } : {}),
    profileName,
  });
}

/** The text, media id, payload and reacted-to message of one message type's object. */
function readContent(
  type: string,
  content: Record<string, unknown>,
): Pick<InboundMessageEvent, "text" | "mediaId" | "payload" | "contextMessageId"> {
  if (type === "text") return { text: text(content.body, TEXT_MAX) };
  if (MEDIA_TYPES.has(type)) return { mediaId: text(content.id, ID_MAX), text: text(content.caption, TEXT_MAX) };
  if (type === "button") return { text: text(content.text, TEXT_MAX), payload: text(content.payload, TEXT_MAX) };
  if (type === "reaction") {
    return { text: text(content.emoji, NAME_MAX), contextMessageId: text(content.message_id, ID_MAX) };
  }
  if (type === "interactive") {
    const reply = isRecord(content.button_reply) ? content.button_reply : content.list_reply;
    return isRecord(reply) ? { text: text(reply.title, TEXT_MAX), payload: text(reply.id, TEXT_MAX) } : {};
  }
  return {};
}

function readTemplateStatus(
  wabaId: string | undefined,
  value: Record<string, unknown>,
): TemplateStatusEvent | undefined {
  // Meta sends the template id as a JSON number; a string is taken as well.
  const id = value.message_template_id;
  const templateId = typeof id === "number" && Number.isSafeInteger(id) ? String(id) : text(id, ID_MAX);
  const name = text(value.message_template_name, NAME_MAX);
  const language = text(value.message_template_language, NAME_MAX);
  const event = text(value.event, NAME_MAX);
  if (!wabaId || !templateId || !name || !language || !event) return undefined;
  const reason = prose(value.reason);
  return { wabaId, templateId, name, language, event, ...(reason && reason !== "NONE" ? { reason } : {}) };
}

/** Unix seconds (Meta sends a string of digits) to milliseconds. */
function millis(value: unknown): number | undefined {
  const seconds = typeof value === "string" && /^\d{1,12}$/.test(value) ? Number(value) : value;
  return typeof seconds === "number" && Number.isSafeInteger(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * A non-empty string of at most `max` characters without U+0000, or undefined. Meta sends no
 * NUL; PostgreSQL's text cannot store one, so on it one NUL answered the whole callback 400 (and
 * Meta delivered it again, the items beside it with it) while SQLite stored it: its item is
 * unreadable on both.
 */
function text(value: unknown, max: number): string | undefined {
  return typeof value === "string" && value !== "" && value.length <= max && !value.includes("\u0000")
    ? value
    : undefined;
}

/** A description: a non-empty string, its NULs left out, cut at PROSE_MAX characters. */
function prose(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const words = value.replaceAll("\u0000", "");
  if (words === "") return undefined;
  return words.length > PROSE_MAX ? `${words.slice(0, PROSE_MAX - 1)}…` : words;
}
