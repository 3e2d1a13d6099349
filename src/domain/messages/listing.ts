// An account's messages of every channel, newest first, a page at a time (GET /api/v2/messages),
// and every account's for the operator (GET /admin/api/messages).
// A page continues from the (created_at, id) of the last row of the one before, so a message
// accepted meanwhile (it sorts before that position) never shifts a later page: no row is
// repeated or skipped. Every access path is a range of an index ending in (created_at, id)
// (migration 0015): by account, dates included, or by broadcast (a bulk job's messages share
// one); a queue or vendor id finds one row. Number, channel and status are checked on the rows
// read, at most SCAN_BUDGET of them per page: a filter that matches rarely answers a short page
// (even an empty one) with a position to continue from, instead of reading the whole account.
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import type { MessageRow, MessageStatus } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";

/** Rows read at most for one page when number, channel or status filters leave some out. */
export const SCAN_BUDGET = 10_000;

export interface MessageFilter {
  channels?: readonly string[];
  statuses?: readonly MessageStatus[];
  /** The stored forms of one number or address (recipientForms). */
  recipients?: readonly string[];
  broadcastId?: string;
  jobId?: number;
  queueId?: string;
  upstreamId?: string;
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
  /** The operator's filters: the connector that took it, its error code, its route code. */
  connectors?: readonly string[];
  errorCodes?: readonly string[];
  routes?: readonly string[];
}

/** Where a page ends: the next page holds the messages strictly after it (older). */
export interface ListPosition {
  createdAt: number;
  id: string;
}

export interface MessagePage {
  rows: MessageRow[];
  /** null: nothing after this page. */
  next: ListPosition | null;
}

/**
 * The stored forms of a number or address as a client may write it: an Indian mobile is kept as
 * its 10 digits (SMS, voice) and with 91 (WhatsApp); another number as digits with its country
 * code (SMS, WhatsApp) or in E.164 with + (voice). An email address is one recipient whatever
 * the case of its letters (a send de-duplicates `Bob@` and `bob@`): its forms are in lower case,
 * and the list compares each stored address lower-cased by the engine, which SQLite does for
 * A to Z only and PostgreSQL for every letter; so both forms, A to Z lowered and every letter.
 */
export function recipientForms(raw: string): string[] {
  const text = raw.trim();
  // An address in lower case, matched against each stored one lower-cased (its forms below).
  if (text.lastIndexOf("@") > 0) return [...new Set([asciiLower(text), text.toLowerCase()])];
  const mobile = normalizeIndianMobile(text);
  if (mobile) return [mobile, `91${mobile}`];
  const digits = text.replace(/[\s().-]/g, "").replace(/^(\+|00)/, "");
  return /^\d{3,20}$/.test(digits) ? [digits, `+${digits}`] : [text];
}

const asciiLower = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/**
 * A page of the messages of `accountId`, or of every account (the operator's list, read from the
 * index of all messages by (created_at, id)).
 */
export async function listMessages(
  db: Db,
  accountId: number | undefined,
  filter: MessageFilter,
  limit: number,
  after?: ListPosition,
): Promise<MessagePage> {
  let broadcastId = filter.broadcastId;
  if (filter.jobId !== undefined) {
    // A bulk job's messages all carry its batch id: the broadcast index finds them.
    let jobs = db.selectFrom("bulk_jobs").select("batch_id").where("id", "=", filter.jobId);
    if (accountId !== undefined) jobs = jobs.where("account_id", "=", accountId);
    const job = await jobs.executeTakeFirst();
    if (!job || (broadcastId !== undefined && broadcastId !== job.batch_id)) return { rows: [], next: null };
    broadcastId = job.batch_id;
  }
  let scan = db.selectFrom("messages");
  if (accountId !== undefined) scan = scan.where("account_id", "=", accountId);
  if (filter.queueId !== undefined) scan = scan.where("id", "=", filter.queueId);
  if (filter.upstreamId !== undefined) scan = scan.where("upstream_id", "=", filter.upstreamId);
  if (broadcastId !== undefined) scan = scan.where("broadcast_id", "=", broadcastId);
  if (filter.jobId !== undefined) scan = scan.where("job_id", "=", filter.jobId);
  if (filter.from !== undefined) scan = scan.where("created_at", ">=", filter.from);
  if (filter.to !== undefined) scan = scan.where("created_at", "<", filter.to);
  if (after) {
    scan = scan
      .where("created_at", "<=", after.createdAt)
      .where((eb) => eb.or([eb("created_at", "<", after.createdAt), eb("id", "<", after.id)]));
  }
  scan = scan.orderBy("created_at", "desc").orderBy("id", "desc");

  const { recipients, channels, statuses, connectors, errorCodes, routes } = filter;
  if (!recipients && !channels && !statuses && !connectors && !errorCodes && !routes) {
    const rows = await scan
      .selectAll()
      .limit(limit + 1)
      .execute();
    return pageOf(rows, limit, null);
  }
  const read = scan
    .select(["id", "created_at", "recipient", "channel", "status", "connector", "error_code", "error_reason", "route"])
    .limit(SCAN_BUDGET);
  let matching = db.selectFrom(read.as("s")).innerJoin("messages as m", "m.id", "s.id").selectAll("m");
  if (recipients) {
    const addresses = recipients.filter((form) => form.includes("@"));
    const numbers = recipients.filter((form) => !form.includes("@"));
    matching = matching.where((eb) =>
      eb.or([
        ...(numbers.length > 0 ? [eb("s.recipient", "in", numbers)] : []),
        ...(addresses.length > 0 ? [eb(eb.fn<string>("lower", ["s.recipient"]), "in", addresses)] : []),
      ]),
    );
  }
  if (channels) matching = matching.where("s.channel", "in", [...channels]);
  if (statuses) matching = matching.where("s.status", "in", [...statuses]);
  if (connectors) matching = matching.where("s.connector", "in", [...connectors]);
  // A carrier failure's reason is its key in the analytics' error breakdown: either finds it, in
  // any case (`undeliv` finds UNDELIV, as `status` is read in any case).
  if (errorCodes) {
    const codes = [...new Set(errorCodes.map((code) => code.toLowerCase()))];
    matching = matching.where((eb) =>
      eb.or([
        eb(eb.fn<string>("lower", ["s.error_code"]), "in", codes),
        eb(eb.fn<string>("lower", ["s.error_reason"]), "in", codes),
      ]),
    );
  }
  if (routes) matching = matching.where("s.route", "in", [...routes]);
  const rows = await matching
    .orderBy("s.created_at", "desc")
    .orderBy("s.id", "desc")
    .limit(limit + 1)
    .execute();
  if (rows.length > limit) return pageOf(rows, limit, null);
  // A short page: did the read stop at its budget? Then the next page starts after its last row.
  const last = await scan
    .select(["id", "created_at"])
    .offset(SCAN_BUDGET - 1)
    .limit(1)
    .executeTakeFirst();
  return pageOf(rows, limit, last ? { createdAt: Number(last.created_at), id: last.id } : null);
}

/**
 * Every message the filter matches, newest first, read `batch` at a time (an export): as the
 * list pages, so memory holds one page whatever the count.
 */
export async function* eachMessage(
  db: Db,
  accountId: number | undefined,
  filter: MessageFilter,
  batch = 1_000,
): AsyncGenerator<MessageRow> {
  let after: ListPosition | undefined;
  for (;;) {
    const page = await listMessages(db, accountId, filter, batch, after);
    yield* page.rows;
    if (!page.next) return;
    after = page.next;
  }
}

/**
 * The account's messages of `channels` newest first, `limit` of them after skipping `offset`
 * (the legacy mis call pages by offset), only those from `sender` when given.
 */
export async function listMessagesByOffset(
  db: Db,
  accountId: number,
  options: { channels: readonly string[]; sender?: string | undefined; limit: number; offset: number },
): Promise<MessageRow[]> {
  let query = db
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("channel", "in", [...options.channels]);
  if (options.sender !== undefined) query = query.where("sender", "=", options.sender);
  return query
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(options.limit)
    .offset(options.offset)
    .execute();
}

function pageOf(rows: MessageRow[], limit: number, budgetEnd: ListPosition | null): MessagePage {
  if (rows.length > limit) {
    const page = rows.slice(0, limit);
    const end = page[page.length - 1]!;
    return { rows: page, next: { createdAt: Number(end.created_at), id: end.id } };
  }
  return { rows, next: budgetEnd };
}

/** The opaque cursor of a position (versioned, so its form can change without breaking old ones). */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(`1:${position.createdAt}:${position.id}`, "utf8").toString("base64url");
}

/** The position a cursor names, or undefined when it is not one of ours. */
export function decodeCursor(cursor: string): ListPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return undefined;
  const match = /^1:(\d{1,15}):([A-Za-z0-9_-]{1,64})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return match ? { createdAt: Number(match[1]), id: match[2]! } : undefined;
}
