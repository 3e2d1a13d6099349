// One recipient's message of a send, as nodemailer options: the headers every recipient of
// the send shares (To and Cc, never Bcc), our Message-ID, the VERP envelope sender that makes
// a bounce name its message, DKIM, and the open pixel, click links and one-click unsubscribe
// (List-Unsubscribe, List-Unsubscribe-Post; RFC 8058) of that recipient.
import type Mail from "nodemailer/lib/mailer/index.js";
import type { DefaultTreeAdapterMap } from "parse5";
import { storedQueueId } from "../../base/core/ids.js";
import type { EmailContent } from "./content.js";

export interface Tracker {
  openPixelUrl(messageId: string): string;
  clickUrl(messageId: string, url: string): string;
  /** The signed one-click unsubscribe URL; without it no List-Unsubscribe header is added. */
  unsubscribeUrl?(messageId: string): string;
}

/** The headers DKIM signs: nodemailer's list and List-Unsubscribe-Post, which RFC 8058 wants signed too. */
const DKIM_HEADERS =
  "From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:" +
  "Content-ID:Content-Description:Resent-Date:Resent-From:Resent-Sender:Resent-To:Resent-Cc:Resent-Message-ID:" +
  "In-Reply-To:References:List-Id:List-Help:List-Unsubscribe:List-Unsubscribe-Post:List-Subscribe:List-Post:" +
  "List-Owner:List-Archive";

/** RFC 8058's headers for a recipient's message of a send that has them (list mail). */
function unsubscribeHeaders(content: EmailContent, messageId: string, tracker: Tracker | undefined) {
  if (!content.listUnsubscribe || !tracker?.unsubscribeUrl) return {};
  return {
    "List-Unsubscribe": `<${tracker.unsubscribeUrl(messageId)}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
  };
}

export interface BuildOptions {
  bounceDomain: string;
  tracker: Tracker | undefined;
  /** The Date header; now when absent. */
  date?: Date;
}

type Node = DefaultTreeAdapterMap["node"];
type Element = DefaultTreeAdapterMap["element"];

/** The envelope sender of a message (VERP): bounces come back to it and name the message. */
export function bounceAddress(messageId: string, bounceDomain: string): string {
  return `bounces+${messageId}@${bounceDomain}`;
}

/** VERP: the message id from a bounce address (bounces+<id>@domain, angle brackets allowed), or undefined. */
export function messageIdFromBounceAddress(address: string, bounceDomain: string): string | undefined {
  const match = /^<?bounces\+([^@<>\s]+)@([^@<>\s]+?)\.?>?$/i.exec(address.trim());
  if (!match || match[2]!.toLowerCase() !== bounceDomain.toLowerCase()) return undefined;
  return normalizeMessageId(match[1]!);
}

/** Our message id from a Message-ID header value `<id@bounceDomain>`, or undefined. */
export function messageIdFromMessageIdHeader(value: string, bounceDomain: string): string | undefined {
  const match = /^\s*<?([^@<>\s]+)@([^@<>\s]+)>?\s*$/.exec(value);
  if (!match || match[2]!.toLowerCase() !== bounceDomain.toLowerCase()) return undefined;
  return normalizeMessageId(match[1]!);
}

/** Queue ids are `q` + an upper-case ULID; some relays lower-case local parts on the way back. */
export function normalizeMessageId(raw: string): string | undefined {
  return storedQueueId(raw);
}

/** nodemailer message options for one recipient of a content. */
export async function buildMessage(
  content: EmailContent,
  messageId: string,
  recipient: string,
  options: BuildOptions,
): Promise<Mail.Options> {
  const { bounceDomain, tracker } = options;
  let html = content.html;
  if (tracker && content.trackClicks) html = await rewriteLinks(html, (url) => tracker.clickUrl(messageId, url));
  if (tracker && content.trackOpens) html = await appendOpenPixel(html, tracker.openPixelUrl(messageId));
  return {
    from: { name: content.fromName ?? "", address: content.fromAddress },
    ...(content.to.length > 0 ? { to: content.to } : {}),
    ...(content.cc.length > 0 ? { cc: content.cc } : {}),
    ...(content.replyTo ? { replyTo: content.replyTo } : {}),
    subject: content.subject,
    html,
    ...(content.text !== null ? { text: content.text } : {}),
    attachments: content.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
    })),
    messageId: `<${messageId}@${bounceDomain}>`,
    date: options.date ?? new Date(),
    headers: { "X-Switchboard-Message-Id": messageId, ...unsubscribeHeaders(content, messageId, tracker) },
    envelope: { from: bounceAddress(messageId, bounceDomain), to: [recipient] },
    ...(content.dkim
      ? {
          dkim: {
            domainName: content.dkim.domainName,
            keySelector: content.dkim.keySelector,
            privateKey: content.dkim.privateKey,
            headerFieldNames: DKIM_HEADERS,
          },
        }
      : {}),
    // Content comes from API clients: nodemailer must never read a path or URL they name.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

const TRACKED_SCHEME = /^https?:\/\//i;

/** The URL a browser follows for an attribute value: C0 controls and spaces trimmed, tabs and newlines removed (WHATWG URL). */
function followedUrl(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) <= 0x20) start++;
  while (end > start && value.charCodeAt(end - 1) <= 0x20) end--;
  return value.slice(start, end).replace(/[\t\n\r]/g, "");
}

/**
 * Every http(s) href of an <a> or <area> element goes through `rewrite`. The document is
 * parsed by an HTML5 parser that reports where each attribute sits in the source, and only
 * those spans are replaced: the rest of the HTML stays byte for byte, comments (including
 * Outlook's conditional ones) are not touched, and quoting and entities are read as a
 * browser reads them.
 */
export async function rewriteLinks(html: string, rewrite: (url: string) => string): Promise<string> {
  const edits: { start: number; end: number; text: string }[] = [];
  walk(await parsed(html), (element) => {
    if (element.tagName !== "a" && element.tagName !== "area") return;
    const href = element.attrs.find((attr) => attr.name === "href" && !attr.prefix);
    const where = element.sourceCodeLocation?.attrs?.href;
    if (!href || !where) return;
    const url = followedUrl(href.value);
    if (!TRACKED_SCHEME.test(url)) return;
    edits.push({ start: where.startOffset, end: where.endOffset, text: `href="${escapeAttribute(rewrite(url))}"` });
  });
  let out = html;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  }
  return out;
}

/** A 1×1 image before the closing </body>, or at the end when the HTML has none. */
export async function appendOpenPixel(html: string, url: string): Promise<string> {
  const pixel = `<img src="${escapeAttribute(url)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`;
  let closing: number | undefined;
  walk(await parsed(html), (element) => {
    if (element.tagName === "body") closing = element.sourceCodeLocation?.endTag?.startOffset;
  });
  return closing === undefined ? html + pixel : html.slice(0, closing) + pixel + html.slice(closing);
}

/** The document with where each part sits in the source; parse5 is loaded by the first tracked email (issue 43). */
async function parsed(html: string): Promise<Node> {
  const { parse } = await import("parse5");
  return parse(html, { sourceCodeLocationInfo: true });
}

function walk(node: Node, visit: (element: Element) => void): void {
  if ("tagName" in node) visit(node);
  if ("childNodes" in node) for (const child of node.childNodes) walk(child, visit);
  if ("content" in node) walk(node.content, visit);
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
