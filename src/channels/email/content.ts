// What the email connectors send: a send's content (one email_contents row shared by its
// recipients' messages), its attachments, and the DKIM key of its from domain; read once per
// send through a small cache. Also makes the DKIM key pair of a new sending domain.
import { generateKeyPair, generateKeyPairSync } from "node:crypto";
import { promisify } from "node:util";
import type { MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import type { SubmitResult } from "../../delivery/dispatch/index.js";

export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface DkimKey {
  domainName: string;
  keySelector: string;
  /** PEM (PKCS#8). */
  privateKey: string;
}

export interface EmailContent {
  id: number;
  accountId: number;
  broadcastId: string;
  fromAddress: string;
  fromName: string | null;
  subject: string;
  html: string;
  text: string | null;
  replyTo: string | null;
  /** The visible To and Cc headers (bcc recipients are in neither). */
  to: string[];
  cc: string[];
  trackOpens: boolean;
  trackClicks: boolean;
  /** List mail: each message carries List-Unsubscribe (false: transactional, without it). */
  listUnsubscribe: boolean;
  attachments: EmailAttachment[];
  /** The approved sending domain's DKIM key (the from address's domain), null when none. */
  dkim: DkimKey | null;
}

/** The domain part of an address, lower case. */
export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf("@") + 1).toLowerCase();
}

function addressList(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** Loads contents (with attachments and the DKIM key of the from domain's approved email_domains row of that account) by id. */
export async function loadEmailContents(db: Db, ids: readonly number[]): Promise<Map<number, EmailContent>> {
  const found = new Map<number, EmailContent>();
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return found;
  const rows = await db.selectFrom("email_contents").selectAll().where("id", "in", wanted).execute();
  if (rows.length === 0) return found;
  const attachments = await db
    .selectFrom("email_attachments")
    .select(["content_id", "filename", "content_type", "data"])
    .where(
      "content_id",
      "in",
      rows.map((row) => row.id),
    )
    .orderBy("id")
    .execute();
  const domains = await db
    .selectFrom("email_domains")
    .select(["account_id", "domain", "dkim_selector", "dkim_private_key"])
    .where("status", "=", "approved")
    .where("account_id", "in", [...new Set(rows.map((row) => row.account_id))])
    .where("domain", "in", [...new Set(rows.map((row) => domainOf(row.from_address)))])
    .execute();
  for (const row of rows) {
    const domain = domains.find((d) => d.account_id === row.account_id && d.domain === domainOf(row.from_address));
    found.set(row.id, {
      id: row.id,
      accountId: row.account_id,
      broadcastId: row.broadcast_id,
      fromAddress: row.from_address,
      fromName: row.from_name,
      subject: row.subject,
      html: row.html,
      text: row.text,
      replyTo: row.reply_to,
      to: addressList(row.to_list),
      cc: addressList(row.cc_list),
      trackOpens: row.track_opens === 1,
      trackClicks: row.track_clicks === 1,
      listUnsubscribe: row.list_unsubscribe === 1,
      attachments: attachments
        .filter((a) => a.content_id === row.id)
        .map((a) => ({ filename: a.filename, contentType: a.content_type, content: Buffer.from(a.data) })),
      dkim: domain
        ? { domainName: domain.domain, keySelector: domain.dkim_selector, privateKey: domain.dkim_private_key }
        : null,
    });
  }
  return found;
}

function sizeOf(content: EmailContent): number {
  return (
    content.html.length + (content.text?.length ?? 0) + content.attachments.reduce((n, a) => n + a.content.length, 0)
  );
}

interface Cached {
  content: EmailContent;
  expiresAt: number;
  size: number;
}

/**
 * A small LRU cache with a time limit in front of loadEmailContents: a send's recipients are
 * dispatched in the same or nearby batches, and load their content once. Missing contents are
 * not remembered. Loads of the same id that overlap share one query.
 */
export class EmailContentCache {
  private readonly entries = new Map<number, Cached>();
  private readonly loading = new Map<number, Promise<EmailContent | undefined>>();
  private bytes = 0;
  private readonly max: number;
  private readonly ttlMs: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    options: { max?: number; ttlMs?: number; maxBytes?: number; now?: () => number } = {},
  ) {
    this.max = options.max ?? 64;
    this.ttlMs = options.ttlMs ?? 60_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.now = options.now ?? Date.now;
  }

  async get(ids: readonly number[]): Promise<Map<number, EmailContent>> {
    const result = new Map<number, EmailContent>();
    const pending: [number, Promise<EmailContent | undefined>][] = [];
    const misses: number[] = [];
    const now = this.now();
    for (const id of new Set(ids)) {
      const hit = this.entries.get(id);
      if (hit && hit.expiresAt > now) {
        // Re-inserting moves the entry to the young end of the map's order.
        this.entries.delete(id);
        this.entries.set(id, hit);
        result.set(id, hit.content);
        continue;
      }
      if (hit) this.forget(id);
      const inFlight = this.loading.get(id);
      if (inFlight) pending.push([id, inFlight]);
      else misses.push(id);
    }
    if (misses.length > 0) {
      const load = loadEmailContents(this.db, misses);
      for (const id of misses) {
        const one = load.then((map) => map.get(id));
        // Whoever awaits it sees a failure; unawaited, it must not count as unhandled.
        one.catch(() => undefined);
        this.loading.set(id, one);
        pending.push([id, one]);
      }
      try {
        const loaded = await load;
        for (const content of loaded.values()) this.remember(content);
      } finally {
        for (const id of misses) this.loading.delete(id);
      }
    }
    for (const [id, promise] of pending) {
      const content = await promise;
      if (content) result.set(id, content);
    }
    return result;
  }

  private remember(content: EmailContent): void {
    const size = sizeOf(content);
    if (size > this.maxBytes) return;
    this.forget(content.id);
    this.entries.set(content.id, { content, expiresAt: this.now() + this.ttlMs, size });
    this.bytes += size;
    for (const [id] of this.entries) {
      if (this.entries.size <= this.max && this.bytes <= this.maxBytes) break;
      this.forget(id);
    }
  }

  private forget(id: number): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.bytes -= entry.size;
  }
}

/** What a DKIM key is made as: RSA 2048, both halves PEM. */
const DKIM_KEY_OPTIONS = {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
} as const;

/** DKIM key pair for a new sending domain: RSA 2048, PEM private (PKCS#8) and public (SPKI), and the DNS TXT value. */
export function generateDkimKey(): DkimKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", DKIM_KEY_OPTIONS);
  return { privateKey, publicKey, dnsTxt: dkimDnsTxt(publicKey) };
}

const generateKeyPairAsync = promisify(generateKeyPair);

/**
 * The same key pair made on libuv's pool: an RSA 2048 key costs 50–300 ms of CPU, which a route
 * pays before its transaction opens, so the writer is never held while the key is made.
 */
export async function newDkimKey(): Promise<DkimKeyPair> {
  const { privateKey, publicKey } = await generateKeyPairAsync("rsa", DKIM_KEY_OPTIONS);
  return { privateKey, publicKey, dnsTxt: dkimDnsTxt(publicKey) };
}

export type DkimKeyPair = { privateKey: string; publicKey: string; dnsTxt: string };

/** The DNS TXT value that publishes a public key (PEM, SPKI): `v=DKIM1; k=rsa; p=<base64 DER>`. */
export function dkimDnsTxt(publicKeyPem: string): string {
  const der = publicKeyPem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
  return `v=DKIM1; k=rsa; p=${der}`;
}

/** Each row's content, or the result that fails it: aligned with `rows`. */
export async function contentsOfRows(
  cache: EmailContentCache,
  rows: readonly MessageRow[],
): Promise<({ content: EmailContent } | { failure: SubmitResult })[]> {
  let contents: Map<number, EmailContent>;
  try {
    contents = await cache.get(rows.flatMap((row) => (row.content_id === null ? [] : [row.content_id])));
  } catch (error) {
    const failure: SubmitResult = {
      ok: false,
      retryable: true,
      code: "content_unavailable",
      message: `Could not read the email's content: ${error instanceof Error ? error.message : String(error)}`,
    };
    return rows.map(() => ({ failure }));
  }
  return rows.map((row) => {
    const content = row.content_id === null ? undefined : contents.get(row.content_id);
    if (content) return { content: revealedContent(content, row.body) };
    return {
      failure: {
        ok: false,
        retryable: false,
        code: "content_missing",
        message: `The email's content (${row.content_id ?? "none"}) no longer exists.`,
      },
    };
  });
}

const MASK = "\u2022";

/**
 * A content stored with a masked run (a verification code's digits as `•`, the text also the
 * row's body) as the connector sends it: when the row it was handed carries a body equal to the
 * text but for those masked characters (the dispatcher put the code back, channels/verify),
 * the text is that body and each masked run of the HTML takes the same clear characters.
 */
export function revealedContent(content: EmailContent, body: string): EmailContent {
  const text = content.text;
  if (text === null || text === body || text.length !== body.length || !text.includes(MASK)) return content;
  const runs: { masked: string; clear: string }[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === MASK) {
      let end = i;
      while (text[end] === MASK) end++;
      runs.push({ masked: text.slice(i, end), clear: body.slice(i, end) });
      i = end - 1;
    } else if (text[i] !== body[i]) {
      return content;
    }
  }
  let html = content.html;
  for (const run of runs) html = html.replace(run.masked, run.clear);
  return { ...content, text: body, html };
}
