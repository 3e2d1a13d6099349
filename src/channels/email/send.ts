// An email send: its parameters checked (the family answers -11 for any of these), the
// content stored once and one message per recipient (to + cc + bcc, de-duplicated, less the
// addresses on the account's email suppression list unless the send is transactional), charged
// 1 email credit each, all in the Acceptor's transaction. The answer is the broadcast id.

import type { Clock } from "../../base/core/clock.js";
import { MILLI } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { refuseNul } from "../../base/core/text-checks.js";
import { parseLocalDateTime } from "../../base/core/time.js";
import type { Store } from "../../base/store/store.js";
import type { PriceBook } from "../../domain/accounts/index.js";
import { inactiveAccount, type Principal, principalActor } from "../../domain/auth/index.js";
import type { AcceptService, MessageDraft, SendOrder } from "../../domain/messages/index.js";
import { ensureSigningSecret } from "../../domain/webhooks/operations.js";
import { checkWebhookUrl } from "../../domain/webhooks/url-guard.js";
import { type Mailbox, parseMailbox, parseMailboxes } from "./addresses.js";
import { EMAIL_CONTENT, type EmailContentDraft } from "./content-rows.js";
import { isApprovedSender } from "./domains.js";
import { suppressedAmong } from "./suppressions.js";
import { fill, getEmailTemplate, parsePlaceholders } from "./templates.js";

export const MAX_RECIPIENTS = 1_000;
export const MAX_SUBJECT = 998;
export const MAX_HTML = 2 * 1024 * 1024;
export const MAX_ATTACHMENTS = 10;
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_CALLBACK_DATA = 1_000;
const CREDIT = 1 * MILLI;

export interface UploadedFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

export type RecipientKind = "to" | "cc" | "bcc";

export interface EmailSendDeps {
  store: Store;
  clock: Clock;
  acceptor: AcceptService;
  /** Whose wallets a sub-account's email is charged in too: its ancestors', at the same fixed price. */
  prices: Pick<PriceBook, "cardFor">;
  allowPrivateWebhooks: boolean;
  /** The sender's address (the request's), for the audit entry of a secret its notifyurl makes. */
  address?: string;
}

interface Recipient {
  address: string;
  name: string | null;
  kind: RecipientKind;
}

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off", ""]);

function flag(params: Record<string, string>, name: string, absent = false): boolean {
  const raw = params[name]?.trim().toLowerCase();
  if (raw === undefined) return absent;
  if (TRUE.has(raw)) return true;
  if (FALSE.has(raw)) return false;
  throw new GatewayError("invalid_request", `${name} must be true or false.`, { field: name });
}

function required(params: Record<string, string>, name: string): string {
  const value = params[name];
  if (value === undefined || value.trim() === "") {
    throw new GatewayError("invalid_request", `Missing ${name}.`, { field: name });
  }
  return value;
}

/** A recipient the send went on without: on the account's email suppression list. */
export interface LeftOutAddress {
  recipient: string;
  error: GatewayError;
}

/**
 * Sends one email to its recipients; resolves with the broadcast id once it is stored and
 * charged, and the suppressed recipients it left out (for the log of refusals).
 */
export async function sendEmail(
  deps: EmailSendDeps,
  principal: Principal,
  params: Record<string, string>,
  files: UploadedFile[],
): Promise<{ broadcastId: string; leftOut: LeftOutAddress[] }> {
  const { order, leftOut } = await checkedEmail(deps, principal, params, files);
  const outcome = await deps.acceptor.accept(order);
  if (outcome.kind !== "accepted") throw new GatewayError("conflict", "The send was not accepted.");
  return { broadcastId: outcome.send.broadcastId, leftOut };
}

/** One email's send, checked and priced, as the Acceptor takes it (the family's refusals thrown). */
export async function emailOrder(
  deps: Omit<EmailSendDeps, "acceptor">,
  principal: Principal,
  params: Record<string, string>,
  files: UploadedFile[],
): Promise<SendOrder> {
  return (await checkedEmail(deps, principal, params, files)).order;
}

async function checkedEmail(
  deps: Omit<EmailSendDeps, "acceptor">,
  principal: Principal,
  params: Record<string, string>,
  files: UploadedFile[],
): Promise<{ order: SendOrder; leftOut: LeftOutAddress[] }> {
  const db = deps.store.db;
  // The legacy credentials check does not look at the account's state; the email family answers -7.
  if (principal.status !== "active") throw inactiveAccount(principal, "send email");
  const from = parseMailbox(required(params, "from"), "from");
  const everyone = collectRecipients(params);

  const templateRaw = params.templateid?.trim();
  let subject = params.subject;
  let html = params.html;
  let text = params.text;
  if (templateRaw) {
    const id = /^\d{1,12}$/.test(templateRaw) ? Number(templateRaw) : Number.NaN;
    const template = Number.isNaN(id) ? undefined : await getEmailTemplate(db, principal.accountId, id);
    if (!template) {
      throw new GatewayError("invalid_request", `No email template ${templateRaw.slice(0, 40)} in this account.`, {
        field: "templateid",
      });
    }
    // The request's own fields win over the template's.
    subject = subject?.trim() ? subject : template.subject;
    html = html?.trim() ? html : template.html;
    text = text?.trim() ? text : (template.text ?? undefined);
  }
  const values = parsePlaceholders(params.defaultplaceholders);
  if (subject === undefined || subject.trim() === "") {
    throw new GatewayError("invalid_request", "Missing subject.", { field: "subject" });
  }
  if (html === undefined || html.trim() === "")
    throw new GatewayError("invalid_request", "Missing html.", { field: "html" });
  subject = fill(subject, values, false).replace(/[\r\n]+/g, " ");
  html = fill(html, values, true);
  text = text?.trim() ? fill(text, values, false) : undefined;
  // PostgreSQL's text cannot hold a NUL, and no mail should: refused on both engines, naming the field.
  refuseNul(subject, "The subject", "subject");
  refuseNul(html, "The html", "html");
  refuseNul(text, "The text", "text");
  if ([...subject].length > MAX_SUBJECT) {
    throw new GatewayError("invalid_request", `subject is longer than ${MAX_SUBJECT} characters.`, {
      field: "subject",
    });
  }
  if (Buffer.byteLength(html) > MAX_HTML) {
    throw new GatewayError("invalid_request", `html is larger than ${MAX_HTML / 1024 / 1024} MB.`, { field: "html" });
  }

  const replyTo = params.replyto?.trim() ? parseMailbox(params.replyto, "replyto") : undefined;
  const trackOpens = flag(params, "trackopens");
  const trackClicks = flag(params, "trackclicks");
  // List mail (the default) carries List-Unsubscribe and skips the suppressed; 0 is transactional.
  const listUnsubscribe = flag(params, "unsubscribe", true);
  const notifyUrl = params.notifyurl?.trim() ? params.notifyurl.trim() : undefined;
  if (notifyUrl) {
    try {
      checkWebhookUrl(notifyUrl, { allowPrivate: deps.allowPrivateWebhooks });
    } catch (error) {
      const reason = error instanceof GatewayError ? error.message.replace(/^The webhook URL/, "notifyurl") : "";
      throw new GatewayError("invalid_request", reason || "notifyurl is not valid.", { field: "notifyurl" });
    }
  }
  const callbackData = params.callbackdata;
  refuseNul(callbackData, "The callbackdata", "callbackdata");
  if (callbackData !== undefined && callbackData.length > MAX_CALLBACK_DATA) {
    throw new GatewayError("invalid_request", `callbackdata is longer than ${MAX_CALLBACK_DATA} characters.`, {
      field: "callbackdata",
    });
  }
  checkAttachments(files);

  const now = deps.clock.now().getTime();
  let dueAt = now;
  if (params.sendat?.trim()) {
    const at = parseLocalDateTime(params.sendat, principal.timeZone);
    if (!at) {
      throw new GatewayError("invalid_request", "sendat must be YYYY-MM-DD HH:MM:SS in the account's time zone.", {
        field: "sendat",
      });
    }
    // A past time means now.
    dueAt = Math.max(now, at.getTime());
  }

  if (!(await isApprovedSender(db, principal.accountId, from.address))) {
    throw new GatewayError(
      "invalid_request",
      `The sender domain ${from.address.split("@")[1]} is not an approved sending domain of this account.`,
      { field: "from" },
    );
  }

  const { kept: recipients, leftOut } = listUnsubscribe
    ? await withoutSuppressed(db, principal.accountId, everyone)
    : { kept: everyone, leftOut: [] };

  // Notifications are signed with the account's webhook secret: make one if it has none yet.
  if (notifyUrl) {
    const who = { clock: deps.clock, actor: principalActor(principal, deps.address ?? null) };
    await ensureSigningSecret(deps.store, who, principal.accountId, "an email's notifyurl");
  }

  // Many recipients are a campaign: they wait behind one-to-one mail of other accounts.
  const lane = everyone.length > 1 ? 1 : 0;
  const { upline } = await deps.prices.cardFor(principal.accountId);
  const drafts: MessageDraft[] = recipients.map((r) => ({
    recipient: r.address,
    sender: from.address,
    body: subject as string,
    encoding: null,
    segments: 1,
    flash: false,
    route: "email",
    lane,
    credits: CREDIT,
    ...(upline.length > 0 ? { upline: upline.map(() => CREDIT) } : {}),
    dueAt,
    meta: { kind: r.kind },
  }));
  // The To and Cc headers as written (a suppressed address too), display names kept ("Asha <asha@example.org>").
  const visible = (kind: RecipientKind) =>
    JSON.stringify(everyone.filter((r) => r.kind === kind).map((r) => formatMailbox(r)));
  const order: SendOrder = {
    accountId: principal.accountId,
    timeZone: principal.timeZone,
    channel: "email",
    wallet: "email",
    drafts,
    ...(upline.length > 0 ? { upline } : {}),
    status: dueAt > now ? "scheduled" : "queued",
    shared: {
      kind: EMAIL_CONTENT,
      content: {
        from_address: from.address,
        from_name: from.name,
        subject: subject as string,
        html: html as string,
        text: text ?? null,
        reply_to: replyTo ? formatMailbox(replyTo) : null,
        to_list: visible("to"),
        cc_list: visible("cc"),
        track_opens: trackOpens ? 1 : 0,
        track_clicks: trackClicks ? 1 : 0,
        list_unsubscribe: listUnsubscribe ? 1 : 0,
        notify_url: notifyUrl ?? null,
        callback_data: callbackData ?? null,
        created_at: now,
        attachments: files.map((file) => ({
          filename: file.filename,
          content_type: file.contentType,
          data: file.content,
        })),
      } satisfies EmailContentDraft,
    },
  };
  return { order, leftOut };
}

/**
 * The recipients not on the account's email suppression list, and those left out; when none is
 * left the send is refused as the last one's opt-out.
 */
async function withoutSuppressed(
  db: Store["db"],
  accountId: number,
  recipients: Recipient[],
): Promise<{ kept: Recipient[]; leftOut: LeftOutAddress[] }> {
  const listed = await suppressedAmong(
    db,
    accountId,
    recipients.map((r) => r.address),
  );
  if (listed.size === 0) return { kept: recipients, leftOut: [] };
  const leftOut: LeftOutAddress[] = [];
  const kept = recipients.filter((r) => {
    if (!listed.has(r.address.toLowerCase())) return true;
    leftOut.push({
      recipient: r.address,
      error: new GatewayError(
        "recipient_opted_out",
        `${r.address} unsubscribed from this account's email (List-Unsubscribe); only a transactional send, without List-Unsubscribe, reaches it.`,
        { field: "to" },
      ),
    });
    return false;
  });
  if (kept.length === 0) throw leftOut[leftOut.length - 1]!.error;
  return { kept, leftOut };
}

/** to, cc and bcc, each address once (the first list naming it wins), at most MAX_RECIPIENTS. */
function collectRecipients(params: Record<string, string>): Recipient[] {
  const to = parseMailboxes(required(params, "to"), "to");
  if (to.length === 0) throw new GatewayError("invalid_request", "Missing to.", { field: "to" });
  const lists: Array<[RecipientKind, Mailbox[]]> = [
    ["to", to],
    ["cc", params.cc?.trim() ? parseMailboxes(params.cc, "cc") : []],
    ["bcc", params.bcc?.trim() ? parseMailboxes(params.bcc, "bcc") : []],
  ];
  const seen = new Set<string>();
  const out: Recipient[] = [];
  for (const [kind, list] of lists) {
    for (const mailbox of list) {
      const key = mailbox.address.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ address: mailbox.address, name: mailbox.name, kind });
    }
  }
  if (out.length > MAX_RECIPIENTS) {
    throw new GatewayError("invalid_request", `At most ${MAX_RECIPIENTS} recipients (to + cc + bcc) per send.`, {
      field: "to",
    });
  }
  return out;
}

function checkAttachments(files: UploadedFile[]): void {
  if (files.length > MAX_ATTACHMENTS) {
    throw new GatewayError("invalid_request", `At most ${MAX_ATTACHMENTS} attachments.`, { field: "attachment" });
  }
  const total = files.reduce((sum, file) => sum + file.content.length, 0);
  if (total > MAX_ATTACHMENT_BYTES) {
    throw new GatewayError("invalid_request", `Attachments are larger than ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB.`, {
      field: "attachment",
    });
  }
  for (const file of files) {
    if (file.content.length === 0) {
      throw new GatewayError("invalid_request", `Attachment ${file.filename} is empty.`, { field: "attachment" });
    }
  }
}

/**
 * The sender as the audit log names it for what its send causes (a secret made for its
 * notifyurl): its key or session and login, as actorOf names a request's caller, but no
 * address (a send is given its principal, not its request).
 */
function formatMailbox(mailbox: Mailbox): string {
  return mailbox.name ? `"${mailbox.name.replace(/["\\]/g, "\\$&")}" <${mailbox.address}>` : mailbox.address;
}
