// Tracked short links (issue 40, item 6; docs/decisions/0122-tracked-short-links.md): where a
// send's links are (a ShortLinkPlan, made by the SMS rules), each message's body with them
// replaced by SHORT_LINK_BASE/<code>, written with the message (the Acceptor, the bulk expander),
// and the reads and writes of a click.
import { createHmac, randomBytes } from "node:crypto";
import { sql } from "kysely";
import type { Db } from "../../base/store/store.js";

/** Characters of a code: 9 random bytes in base64url, 72 bits. */
export const SHORT_CODE_LENGTH = 12;
const CODE = /^[A-Za-z0-9_-]{12}$/;

/** Where a body's links to shorten are (UTF-16 offsets, in order), and what replaces them. */
export interface ShortLinkPlan {
  /** SHORT_LINK_BASE without its trailing `/`. */
  base: string;
  days: number;
  spans: { start: number; end: number }[];
}

export interface NewShortLink {
  code: string;
  message_id: string;
  account_id: number;
  url: string;
  created_at: number;
  expires_at: number;
}

export function newShortCode(): string {
  return randomBytes(9).toString("base64url");
}

/** Whether `code` could be one of ours: anything else is answered 404 without reading the database. */
export function wellFormedCode(code: string): boolean {
  return CODE.test(code);
}

/** The text a shortened link takes: as long as every real one, so segments are counted before the codes exist. */
export function shortLinkPlaceholder(base: string): string {
  return `${base}/${"A".repeat(SHORT_CODE_LENGTH)}`;
}

/** `body` with the plan's links replaced, and the short links to store with the message. */
export function shortenBody(
  body: string,
  plan: ShortLinkPlan,
  message: { id: string; accountId: number; at: number },
): { body: string; links: NewShortLink[] } {
  const links: NewShortLink[] = [];
  let out = "";
  let from = 0;
  for (const span of plan.spans) {
    const code = newShortCode();
    links.push({
      code,
      message_id: message.id,
      account_id: message.accountId,
      url: withScheme(body.slice(span.start, span.end)),
      created_at: message.at,
      expires_at: message.at + plan.days * 86_400_000,
    });
    out += `${body.slice(from, span.start)}${plan.base}/${code}`;
    from = span.end;
  }
  return { body: out + body.slice(from), links };
}

/** A link written without a scheme (`example.in/x`) is followed as https. */
function withScheme(link: string): string {
  return /^https?:\/\//i.test(link) ? link : `https://${link}`;
}

export async function insertShortLinks(trx: Db, links: readonly NewShortLink[]): Promise<void> {
  for (let i = 0; i < links.length; i += 500) {
    await trx
      .insertInto("short_links")
      .values(links.slice(i, i + 500))
      .execute();
  }
}

/** The link a code stands for, while it has not expired. */
export async function findShortLink(db: Db, code: string, now: number) {
  return db
    .selectFrom("short_links")
    .select(["code", "message_id", "account_id", "url", "expires_at"])
    .where("code", "=", code)
    .where("expires_at", ">", now)
    .executeTakeFirst();
}

export interface Click {
  code: string;
  messageId: string;
  accountId: number;
  at: number;
  userAgent: string | null;
  /** The visitor's address, kept only as an HMAC with the installation's secret. */
  address: string;
}

/** The address as stored: HMAC-SHA-256 with the installation's secret, hex, so clicks from one address can be told apart and no address is kept. */
export function addressHash(secret: Buffer, address: string): string {
  return createHmac("sha256", secret).update(address).digest("hex").slice(0, 32);
}

export async function recordClick(trx: Db, click: Click, secret: Buffer): Promise<void> {
  await trx
    .insertInto("link_clicks")
    .values({
      code: click.code,
      message_id: click.messageId,
      account_id: click.accountId,
      at: click.at,
      user_agent: click.userAgent?.slice(0, 500) ?? null,
      address_hash: addressHash(secret, click.address),
    })
    .execute();
  await trx.updateTable("short_links").set({ clicks: sql`clicks + 1` }).where("code", "=", click.code).execute();
}

/** Per message: its short links' clicks and the last click's time (messages without links are absent). */
export async function clicksOf(
  db: Db,
  messageIds: readonly string[],
): Promise<Map<string, { clicks: number; links: number }>> {
  const found = new Map<string, { clicks: number; links: number }>();
  if (messageIds.length === 0) return found;
  const rows = await db
    .selectFrom("short_links")
    .select(["message_id", sql<number>`sum(clicks)`.as("clicks"), sql<number>`count(*)`.as("links")])
    .where("message_id", "in", [...messageIds])
    .groupBy("message_id")
    .execute();
  for (const row of rows) found.set(row.message_id, { clicks: Number(row.clicks), links: Number(row.links) });
  return found;
}

/** A message's clicks, newest first (its status answer lists the last 100). */
export async function clickList(db: Db, messageId: string) {
  return db
    .selectFrom("link_clicks as c")
    .innerJoin("short_links as l", "l.code", "c.code")
    .select(["c.at", "c.user_agent", "c.address_hash", "l.url"])
    .where("c.message_id", "=", messageId)
    .orderBy("c.at", "desc")
    .limit(100)
    .execute();
}

/**
 * The click-through of one send or bulk job (its broadcast id): messages that carried tracked
 * short links, those clicked at least once, clicks in all, and the rate (clicked / with links).
 */
export async function clickThrough(db: Db, accountId: number, broadcastId: string) {
  const row = await db
    .selectFrom("short_links as l")
    .innerJoin("messages as m", "m.id", "l.message_id")
    .select([
      sql<number>`count(distinct l.message_id)`.as("with_links"),
      sql<number>`count(distinct case when l.clicks > 0 then l.message_id end)`.as("clicked"),
      sql<number>`coalesce(sum(l.clicks), 0)`.as("clicks"),
    ])
    .where("m.broadcast_id", "=", broadcastId)
    .where("l.account_id", "=", accountId)
    .executeTakeFirst();
  const withLinks = Number(row?.with_links ?? 0);
  const clicked = Number(row?.clicked ?? 0);
  return {
    messages_with_links: withLinks,
    messages_clicked: clicked,
    clicks: Number(row?.clicks ?? 0),
    click_through_rate: withLinks === 0 ? 0 : Math.round((clicked / withLinks) * 10_000) / 10_000,
  };
}
