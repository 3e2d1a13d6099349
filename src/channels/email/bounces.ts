// Bounces that come back: a DSN (RFC 3464, multipart/report; report-type=delivery-status)
// read into one entry per message of ours. The message is found from the envelope recipient
// first (VERP: bounces+<message id>@bounce domain, where every message of ours is sent from),
// else from the returned message's X-Switchboard-Message-Id or Message-ID.
import { messageIdFromBounceAddress, messageIdFromMessageIdHeader, normalizeMessageId } from "./mime.js";

export interface Bounce {
  /** Our message (queue) id. */
  messageId: string;
  /** The recipient the report is about: Original-Recipient, else Final-Recipient. */
  recipient: string;
  /** Enhanced status code (RFC 3463), e.g. 5.1.1. */
  status: string;
  /** failed, delayed, delivered, relayed or expanded: only `failed` is a bounce. */
  action: string;
  /** The remote server's answer (Diagnostic-Code) or, without one, the status. */
  diagnostic: string;
}

const STATUS_PARTS = new Set(["message/delivery-status", "message/global-delivery-status"]);
const RETURNED_PARTS = new Set(["message/rfc822", "text/rfc822-headers", "message/global", "message/global-headers"]);

/** Header blocks separated by blank lines, folded lines joined; field names in lower case. */
export function headerBlocks(text: string): Map<string, string>[] {
  return text
    .replace(/\r\n/g, "\n")
    .split(/\n[ \t]*\n/)
    .map((block) => {
      const fields = new Map<string, string>();
      for (const line of block.replace(/\n[ \t]+/g, " ").split("\n")) {
        const colon = line.indexOf(":");
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim().toLowerCase();
        if (!fields.has(name)) fields.set(name, line.slice(colon + 1).trim());
      }
      return fields;
    })
    .filter((fields) => fields.size > 0);
}

/** "rfc822; user@example.com" → "user@example.com"; "smtp; 550 …" → "550 …". */
function typedValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const semicolon = value.indexOf(";");
  return (semicolon >= 0 ? value.slice(semicolon + 1) : value).trim().replace(/^<(.*)>$/, "$1");
}

/** Our message id from the returned message's headers (only the header section is read). */
function messageIdOfReturned(text: string, bounceDomain: string): string | undefined {
  const headers = headerBlocks(text.replace(/\r\n/g, "\n").split(/\n[ \t]*\n/)[0] ?? "")[0];
  if (!headers) return undefined;
  const ours = headers.get("x-switchboard-message-id");
  const fromOurs = ours === undefined ? undefined : normalizeMessageId(ours.trim());
  if (fromOurs) return fromOurs;
  const messageId = headers.get("message-id");
  return messageId === undefined ? undefined : messageIdFromMessageIdHeader(messageId, bounceDomain);
}

/**
 * The per-recipient reports of a DSN, one per message of ours (a failed report wins over
 * others for the same message). Not a DSN, or no message of ours named: none.
 */
export async function parseDsn(
  raw: Buffer | string,
  options: { bounceDomain: string; envelopeTo?: readonly string[] },
): Promise<Bounce[]> {
  // Loaded on the first bounce, not at start: mailparser and its dependencies take ~190 ms to
  // load on a slow machine, in each of a start's two threads, for a path most gateways never take.
  const { simpleParser } = await import("mailparser");
  const mail = await simpleParser(raw, {
    keepDeliveryStatus: true,
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipTextLinks: true,
    skipImageLinks: true,
  });
  const type = mail.headers.get("content-type") as { value?: string; params?: Record<string, string> } | undefined;
  if (type?.value !== "multipart/report" || type.params?.["report-type"]?.toLowerCase() !== "delivery-status")
    return [];
  const statusPart = mail.attachments.find((a) => STATUS_PARTS.has(a.contentType.toLowerCase()));
  if (!statusPart) return [];
  const returned = mail.attachments.find((a) => RETURNED_PARTS.has(a.contentType.toLowerCase()));

  const { bounceDomain } = options;
  const messageId =
    (options.envelopeTo ?? [])
      .map((address) => messageIdFromBounceAddress(address, bounceDomain))
      .find((id) => id !== undefined) ??
    (returned ? messageIdOfReturned(returned.content.toString("utf8"), bounceDomain) : undefined) ??
    firstVerpRecipient(mail.to, bounceDomain);
  if (!messageId) return [];

  const [, ...recipients] = headerBlocks(statusPart.content.toString("utf8"));
  const reports: Bounce[] = recipients
    .filter((fields) => fields.has("action") && (fields.has("final-recipient") || fields.has("original-recipient")))
    .map((fields) => {
      const status = /\d\.\d{1,3}\.\d{1,3}/.exec(fields.get("status") ?? "")?.[0] ?? "";
      const action = (fields.get("action") ?? "").toLowerCase().split(/[\s(]/)[0]!;
      return {
        messageId,
        recipient: typedValue(fields.get("original-recipient") ?? fields.get("final-recipient")) ?? "",
        status,
        action,
        // Without NULs, which PostgreSQL's text refuses (the DSN is anyone's mail).
        diagnostic:
          typedValue(fields.get("diagnostic-code"))?.replaceAll("\u0000", "").replace(/\s+/g, " ").trim() ||
          `${status || "unknown status"} (${action})`,
      };
    });
  return [reports.find((r) => r.action === "failed") ?? reports[0]].filter((r): r is Bounce => r !== undefined);
}

function firstVerpRecipient(
  to: { value: { address?: string | undefined }[] } | { value: { address?: string | undefined }[] }[] | undefined,
  bounceDomain: string,
): string | undefined {
  const lists = to === undefined ? [] : Array.isArray(to) ? to : [to];
  for (const list of lists) {
    for (const { address } of list.value) {
      const id = address ? messageIdFromBounceAddress(address, bounceDomain) : undefined;
      if (id) return id;
    }
  }
  return undefined;
}
