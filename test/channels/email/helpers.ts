// Email transport tests: a relay that speaks real SMTP on loopback (smtp-server) and records
// what it was given, sends stored the way the email family stores them, message rows of
// their recipients, and DKIM verification against the domain's published key.
import { randomBytes } from "node:crypto";
import { dkimVerify } from "mailauth";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { createLogger } from "../../../src/app/gateway.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { newQueueId } from "../../../src/base/core/ids.js";
import type { ApprovalStatus, MessageRow } from "../../../src/base/store/schema.js";
import type { Db, Store } from "../../../src/base/store/store.js";
import { type DkimKeyPair, generateDkimKey } from "../../../src/channels/email/content.js";
import { addEmailDomain } from "../../../src/channels/email/domains.js";
import type { Tracker } from "../../../src/channels/email/mime.js";
import { createAccount } from "../../../src/domain/accounts/index.js";
import { buildAccount, call, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { messageRow } from "../../helpers/message-row.js";

export const BOUNCE_DOMAIN = "bounces.gateway.test";
export const silentLogger = createLogger({ logLevel: "silent" });

export interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  /** The conversation had switched to TLS (STARTTLS) before the message. */
  secure: boolean;
}

/** How the relay answers a recipient or a message: an SMTP code and its text. */
export interface Answer {
  code: number;
  text: string;
}

/** A relay on 127.0.0.1 that offers STARTTLS (smtp-server's own test certificate) and records every message. */
export class FakeRelay {
  readonly received: Received[] = [];
  /** Answers to RCPT TO by address (lower case); accepted when absent. */
  readonly recipientAnswers = new Map<string, Answer>();
  /** Answer to the end of DATA for messages to these recipients. */
  readonly dataAnswers = new Map<string, Answer>();
  private count = 0;
  private server: SMTPServer | undefined;
  port = 0;

  /** With a login, the relay takes mail only from user "gateway" with this password. */
  constructor(private readonly login?: { password: string }) {}

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const login = this.login;
    const server = new SMTPServer({
      authOptional: login === undefined,
      logger: false,
      onAuth: (auth, _session, callback) => {
        if (login && auth.username === "gateway" && auth.password === login.password)
          return callback(null, { user: "gateway" });
        callback(Object.assign(new Error("5.7.8 Authentication credentials invalid"), { responseCode: 535 }));
      },
      onRcptTo: (address, _session, callback) => {
        const answer = this.recipientAnswers.get(address.address.toLowerCase());
        callback(answer ? Object.assign(new Error(answer.text), { responseCode: answer.code }) : undefined);
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          const to = session.envelope.rcptTo.map((r) => r.address);
          const answer = to.map((address) => this.dataAnswers.get(address.toLowerCase())).find(Boolean);
          if (answer) return callback(Object.assign(new Error(answer.text), { responseCode: answer.code }));
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
          this.received.push({ from, to, raw: Buffer.concat(chunks), secure: session.secure });
          this.count += 1;
          callback(null, `2.0.0 Ok: queued as RELAY${String(this.count).padStart(4, "0")}`);
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.server.address();
    this.port = typeof address === "object" && address ? address.port : 0;
    this.server = server;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The message the relay took for `recipient` (its envelope names only that recipient). */
  for(recipient: string): Received {
    const found = this.received.filter((r) => r.to.includes(recipient));
    if (found.length !== 1) throw new Error(`${found.length} messages for ${recipient} at the relay`);
    return found[0]!;
  }
}

/** A port nothing listens on: a server is opened on it and closed again. */
export async function closedPort(): Promise<number> {
  const server = new SMTPServer({ logger: false });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 1;
}

let accounts = 0;

export async function buildEmailAccount(store: Store): Promise<number> {
  accounts += 1;
  const account = await createAccount(store, systemClock, {
    username: `mail${accounts}_${randomBytes(3).toString("hex")}`,
    password: "correct horse battery",
  });
  return account.id;
}

/** A sending domain of the account with a fresh DKIM key; returns the DNS TXT record to publish. */
export async function addSendingDomain(
  db: Db,
  accountId: number,
  domain: string,
  status: ApprovalStatus = "approved",
  selector = "sb2025",
): Promise<string> {
  const key = generateDkimKey();
  await db
    .insertInto("email_domains")
    .values({
      account_id: accountId,
      domain,
      status,
      dkim_selector: selector,
      dkim_private_key: key.privateKey,
      dkim_public_key: key.publicKey,
      created_at: Date.now(),
      updated_at: Date.now(),
    })
    .execute();
  return key.dnsTxt;
}

export interface StoredSend {
  from?: string;
  fromName?: string | null;
  subject?: string;
  html?: string;
  text?: string | null;
  replyTo?: string | null;
  to?: string[];
  cc?: string[];
  trackOpens?: boolean;
  trackClicks?: boolean;
  attachments?: { filename: string; contentType: string; data: Buffer }[];
}

/** An email_contents row (and its attachments) as the email family stores a send; returns its id. */
export async function storeContent(db: Db, accountId: number, send: StoredSend = {}): Promise<number> {
  const row = await db
    .insertInto("email_contents")
    .values({
      account_id: accountId,
      broadcast_id: `${accountId}_20250113_${randomBytes(3).toString("hex")}`,
      from_address: send.from ?? "news@shop.example.com",
      from_name: send.fromName === undefined ? "Shop News" : send.fromName,
      subject: send.subject ?? "Your order has shipped",
      html: send.html ?? "<html><body><p>Hello</p></body></html>",
      text: send.text === undefined ? "Hello" : send.text,
      reply_to: send.replyTo ?? null,
      to_list: JSON.stringify(send.to ?? ["ann@example.org"]),
      cc_list: JSON.stringify(send.cc ?? []),
      track_opens: send.trackOpens ? 1 : 0,
      track_clicks: send.trackClicks ? 1 : 0,
      notify_url: null,
      callback_data: null,
      created_at: Date.now(),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  for (const a of send.attachments ?? []) {
    await db
      .insertInto("email_attachments")
      .values({
        content_id: row.id,
        filename: a.filename,
        content_type: a.contentType,
        size: a.data.length,
        data: a.data,
      })
      .execute();
  }
  return row.id;
}

/** The message row of one recipient of a send, as the dispatcher hands it to a connector. */
export function emailRow(
  accountId: number,
  contentId: number | null,
  recipient: string,
  changes: Partial<MessageRow> = {},
): MessageRow {
  const now = Date.now();
  return messageRow({
    id: newQueueId(now),
    account_id: accountId,
    channel: "email",
    broadcast_id: `${accountId}_20250113_000001`,
    recipient,
    sender: "news@shop.example.com",
    body: "Your order has shipped",
    route: "email",
    wallet: "email",
    due_at: now,
    meta: JSON.stringify({ kind: "to" }),
    created_at: now,
    content_id: contentId,
    ...changes,
  });
}

/** Tracking URLs that show what they stand for. */
export const testTracker: Tracker = {
  openPixelUrl: (messageId) => `https://t.gateway.test/o/${messageId}.gif`,
  clickUrl: (messageId, url) => `https://t.gateway.test/c/${messageId}?u=${encodeURIComponent(url)}&x=1`,
};

/** DKIM results of a raw message, with `dnsTxt` published at `<selector>._domainkey.<domain>`. */
export async function verifyDkim(raw: Buffer, records: Record<string, string>) {
  const result = await dkimVerify(raw, {
    resolver: async (name: string, type: string) => {
      const record = records[name.toLowerCase()];
      if (type !== "TXT" || record === undefined)
        throw Object.assign(new Error(`no ${type} record for ${name}`), { code: "ENOTFOUND" });
      return [[record]];
    },
  });
  return result.results;
}

export function parseMail(raw: Buffer) {
  return simpleParser(raw, { skipTextToHtml: true, skipTextLinks: true });
}

export interface DsnSpec {
  /** The DSN's To header: the returned message's envelope sender. */
  to: string;
  recipient: string;
  action?: string;
  status?: string;
  /** Diagnostic-Code text after "smtp; "; long ones are folded as Postfix folds them. */
  diagnostic?: string;
  /** The returned part: the original's headers (Postfix's default), the whole message, or none. */
  returned?: "headers" | "message" | "none";
  /** Header lines of the returned message. */
  originalHeaders?: string[];
}

/** A DSN as Postfix writes one (multipart/report; report-type=delivery-status), CRLF line ends. */
export function postfixDsn(spec: DsnSpec): string {
  const boundary = "3F2A41C0.1736762401/mx.example.org";
  const action = spec.action ?? "failed";
  const status = spec.status ?? "5.1.1";
  const diagnostic =
    spec.diagnostic ??
    `550 5.1.1 <${spec.recipient}>: Recipient address rejected: User unknown in virtual mailbox table`;
  // Postfix folds at a space past column 60 or so.
  const fold = diagnostic.indexOf(" ", 50);
  const folded = fold > 0 ? `${diagnostic.slice(0, fold)}\r\n    ${diagnostic.slice(fold + 1)}` : diagnostic;
  const returned = spec.returned ?? "headers";
  const original = spec.originalHeaders ?? [];
  return [
    "Return-Path: <>",
    "Received: by mx.example.org (Postfix) id 3F2A41C0; Mon, 13 Jan 2025 10:00:01 +0000 (UTC)",
    "Date: Mon, 13 Jan 2025 10:00:01 +0000 (UTC)",
    "From: MAILER-DAEMON@mx.example.org (Mail Delivery System)",
    action === "failed"
      ? "Subject: Undelivered Mail Returned to Sender"
      : "Subject: Delayed Mail (still being retried)",
    `To: ${spec.to}`,
    "Auto-Submitted: auto-replied",
    "MIME-Version: 1.0",
    "Content-Type: multipart/report; report-type=delivery-status;",
    `\tboundary="${boundary}"`,
    "Content-Transfer-Encoding: 7bit",
    "Message-Id: <20250113100001.3F2A41C0@mx.example.org>",
    "",
    "This is a MIME-encapsulated message.",
    "",
    `--${boundary}`,
    "Content-Description: Notification",
    "Content-Type: text/plain; charset=us-ascii",
    "",
    "This is the mail system at host mx.example.org.",
    "",
    "I'm sorry to have to inform you that your message could not",
    "be delivered to one or more recipients. It's attached below.",
    "",
    `<${spec.recipient}>: host mx.example.org[192.0.2.1] said: ${diagnostic} (in reply to RCPT TO command)`,
    "",
    `--${boundary}`,
    "Content-Description: Delivery report",
    "Content-Type: message/delivery-status",
    "",
    "Reporting-MTA: dns; mx.example.org",
    "X-Postfix-Queue-ID: 3F2A41C0",
    `X-Postfix-Sender: rfc822; ${spec.to}`,
    "Arrival-Date: Mon, 13 Jan 2025 10:00:00 +0000 (UTC)",
    "",
    `Final-Recipient: rfc822; ${spec.recipient}`,
    `Original-Recipient: rfc822;${spec.recipient}`,
    `Action: ${action}`,
    `Status: ${status}`,
    "Remote-MTA: dns; mx.example.org",
    `Diagnostic-Code: smtp; ${folded}`,
    "",
    ...(returned === "none"
      ? []
      : [
          `--${boundary}`,
          returned === "headers"
            ? "Content-Description: Undelivered Message Headers"
            : "Content-Description: Undelivered Message",
          returned === "headers" ? "Content-Type: text/rfc822-headers" : "Content-Type: message/rfc822",
          "",
          ...original,
          ...(returned === "message" ? ["", "The original body."] : []),
          "",
        ]),
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

/**
 * The DKIM key of every emailAccount's domain in this worker: an RSA 2048 key costs 50–300 ms of
 * CPU, and making one per account was two thirds of hardening.test.ts's. No test of those accounts
 * tells one account's key from another's; the test that does (another account's key must never
 * sign, content.test.ts) gives each domain a fresh key with addSendingDomain.
 */
let emailAccountKey: DkimKeyPair | undefined;

/** A customer account with email credits and the approved sending domain shop.example.com. */
export async function emailAccount(t: TestGateway, credits = 20): Promise<TestAccount> {
  const account = await buildAccount(t, { credits: { email: credits }, sender: null });
  emailAccountKey ??= generateDkimKey();
  await addEmailDomain(t.db.store.db, t.clock, account.id, "shop.example.com", { approve: true, key: emailAccountKey });
  return account;
}

/** The fields of a valid one-recipient send from that domain. */
export function base(account: TestAccount): Record<string, string> {
  return {
    api_key: account.apiKey,
    from: "Shop <news@shop.example.com>",
    to: "asha@example.org",
    subject: "Your order",
    html: "<p>Hello</p>",
  };
}

/** The subject, HTML and text stored for a send. */
export function storedContent(t: TestGateway, broadcastId: string) {
  return t.db.store.db
    .selectFrom("email_contents")
    .select(["subject", "html", "text"])
    .where("broadcast_id", "=", broadcastId)
    .executeTakeFirstOrThrow();
}

/** A send on the email API (`/httpemailapi/v1/send`) as a form; `fields` include the credentials. */
export function postEmail(t: TestGateway, fields: Record<string, string>) {
  return call(t, "POST", "/httpemailapi/v1/send", {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}
