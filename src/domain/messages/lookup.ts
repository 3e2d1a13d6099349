// Finding an account's messages by any of the ids a client may hold: queue id, broadcast id
// (every message of the broadcast, or its message to one recipient) or the carrier's id. Another
// account's ids find nothing.
import { BROADCAST_ID, isQueueId, storedQueueId } from "../../base/core/ids.js";
import { failureReason } from "../../base/core/message-status.js";
import type { MessageRow, MessageStatus } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";

export type LookupKind = "queue" | "broadcast" | "upstream";

/** A message by its queue id (as stored), or every message of a broadcast. */
export type MessageTarget = { queueId: string } | { broadcastId: string };

/** What an id a send answered names: a message (a queue id, any case) or a broadcast; undefined for neither form. */
export function messageTarget(id: string): MessageTarget | undefined {
  const queueId = storedQueueId(id);
  if (queueId) return { queueId };
  return BROADCAST_ID.test(id) ? { broadcastId: id } : undefined;
}

export async function findMessages(
  db: Db,
  accountId: number,
  id: string,
): Promise<{ kind: LookupKind; rows: MessageRow[] }> {
  // No id holds U+0000, and PostgreSQL refuses it in a query parameter.
  if (id.includes("\u0000")) return { kind: "queue", rows: [] };
  const base = db.selectFrom("messages").selectAll().where("account_id", "=", accountId);
  // A queue id in either case (its ULID is Crockford base 32).
  const queueId = storedQueueId(id);
  if (queueId) return { kind: "queue", rows: await base.where("id", "=", queueId).execute() };
  if (BROADCAST_ID.test(id)) {
    const rows = await base.where("broadcast_id", "=", id).orderBy("id").limit(10_000).execute();
    if (rows.length > 0) return { kind: "broadcast", rows };
  }
  return { kind: "upstream", rows: await base.where("upstream_id", "=", id).limit(100).execute() };
}

/** A message of any account (the operator's desk) by its queue id, else by the carrier's id (the latest such). */
export async function findAnyMessage(db: Db, id: string): Promise<MessageRow | undefined> {
  if (id.includes("\u0000")) return undefined;
  const queueId = storedQueueId(id);
  if (queueId) return db.selectFrom("messages").selectAll().where("id", "=", queueId).executeTakeFirst();
  return db
    .selectFrom("messages")
    .selectAll()
    .where("upstream_id", "=", id)
    .orderBy("created_at", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** The account's message with this queue id (as stored: `q` and upper case); undefined when none. */
export async function findMessage(db: Db, accountId: number, queueId: string): Promise<MessageRow | undefined> {
  return db
    .selectFrom("messages")
    .selectAll()
    .where("id", "=", queueId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/**
 * The status of the broadcast's first message to `recipient` (the legacy DLR call), only among
 * messages created in [from, until) when a window is given; undefined when there is none.
 */
export async function recipientStatus(
  db: Db,
  accountId: number,
  broadcastId: string,
  recipient: string,
  window?: { from: number; until: number },
): Promise<MessageStatus | undefined> {
  let query = db
    .selectFrom("messages")
    .select("status")
    .where("account_id", "=", accountId)
    .where("broadcast_id", "=", broadcastId)
    .where("recipient", "=", recipient);
  if (window) query = query.where("created_at", ">=", window.from).where("created_at", "<", window.until);
  const row = await query.orderBy("id").limit(1).executeTakeFirst();
  return row?.status;
}

/**
 * Whether the account has messages under this queue id or broadcast id, or a bulk job's part
 * still holding recipients under the broadcast id.
 */
export async function messagesExist(db: Db, accountId: number, target: MessageTarget): Promise<boolean> {
  const id = "queueId" in target ? target.queueId : target.broadcastId;
  const found =
    (await db
      .selectFrom("messages")
      .select("status")
      .where("account_id", "=", accountId)
      .where("queueId" in target ? "id" : "broadcast_id", "=", id)
      .limit(1)
      .executeTakeFirst()) ??
    (await db
      .selectFrom("bulk_parts")
      .select("status")
      .where("account_id", "=", accountId)
      .where("broadcast_id", "=", id)
      .limit(1)
      .executeTakeFirst());
  return found !== undefined;
}

/**
 * What an SMPP client's query_sm reads: the message with this queue id (the primary key), or the
 * first `limit` messages of a broadcast (submit_multi's id), through (broadcast_id, created_at, id).
 * By the id alone: with `account_id` in the condition, SQLite's planner (no statistics) takes
 * (account_id, created_at, id) and walks every message of the account. The caller keeps its
 * account's rows.
 */
export function queriedMessagesQuery(db: Db, target: { queueId: string } | { broadcastId: string }, limit: number) {
  const query = db.selectFrom("messages").select(["id", "account_id", "sender", "status", "error_code", "done_at"]);
  if ("queueId" in target) return query.where("id", "=", target.queueId).limit(1);
  return query.where("broadcast_id", "=", target.broadcastId).orderBy("created_at").orderBy("id").limit(limit);
}

/** What a receipt to an SMPP client quotes of each message (sender, text, submit time, parts in meta). */
export async function receiptSources(db: Db, ids: readonly string[]) {
  return db
    .selectFrom("messages")
    .select(["id", "sender", "body", "created_at", "meta", "broadcast_id"])
    .where("id", "in", ids)
    .execute();
}

/** The status of each of these messages that exists (a fallback chain watches its steps' messages). */
export async function messageStatuses(db: Db, ids: readonly string[]): Promise<Map<string, MessageStatus>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("messages")
    .select(["id", "status"])
    .where("id", "in", [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.status]));
}

/** Each of these messages that exists: its status and, once it failed, why, as its status answer says it. */
export async function messageOutcomes(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, { status: MessageStatus; error: ReturnType<typeof failureReason> | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("messages")
    .select(["id", "status", "error_code", "error_message", "error_reason", "carrier_code"])
    .where("id", "in", [...new Set(ids)])
    .execute();
  return new Map(
    rows.map((row) => [row.id, { status: row.status, error: row.status === "failed" ? failureReason(row) : null }]),
  );
}

const BULK_PART_REF = /^bulk_part:(\d{1,15})$/;

/**
 * The broadcast each refund ref gave back (audit F16): a refund's ref is the message it refunded
 * (its queue id) or `bulk_part:N` (a bulk job's unsent part), a debit's the broadcast it charged.
 * Answers ref → broadcast id for the refs that name a message or a part (a parent's refund names
 * its sub-account's message, so any account's).
 */
export async function refundedBroadcasts(db: Db, refs: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const messageIds = refs.filter((ref) => isQueueId(ref));
  const partIds = refs.flatMap((ref) => {
    const match = BULK_PART_REF.exec(ref);
    return match ? [Number(match[1])] : [];
  });
  if (messageIds.length > 0) {
    const rows = await db.selectFrom("messages").select(["id", "broadcast_id"]).where("id", "in", messageIds).execute();
    for (const row of rows) if (row.broadcast_id) found.set(row.id, row.broadcast_id);
  }
  if (partIds.length > 0) {
    const rows = await db.selectFrom("bulk_parts").select(["id", "broadcast_id"]).where("id", "in", partIds).execute();
    for (const row of rows) found.set(`bulk_part:${Number(row.id)}`, row.broadcast_id);
  }
  return found;
}
