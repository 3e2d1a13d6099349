// Meta's statuses for a wamid no message carries yet (`whatsapp_early_statuses`, 0077, decision
// 0191): Meta can call back before the send's transaction that records the wamid commits, or on
// another node. Kept in the transaction that found no message, so before Meta hears its 200; one
// row per wamid and status, so a status Meta delivers twice is kept once. Applied (events.ts) when
// the send records the wamid, by a quick retry from memory, and by upkeep; dropped after an hour,
// by when a send that took the wamid has recorded it or failed (its lease is far shorter). At most
// MAX_KEPT_EARLY_STATUSES are kept, the oldest dropped past it: statuses of wamids no message will
// ever carry (another system's on a shared business account, a replay) would otherwise fill an hour.
import { dropOldestPastMax, type RowBound } from "../../base/store/bounded-table.js";
import type { Db } from "../../base/store/store.js";
import type { MetaError, StatusEvent } from "./meta-webhook.js";

/** How long a kept status waits for a message with its wamid. */
export const KEEP_EARLY_STATUSES_MS = 3_600_000;
/** Kept statuses read at once. */
export const EARLY_STATUSES_PAGE = 500;
/** Statuses kept at most, of all wamids; past it the oldest are dropped. */
export const MAX_KEPT_EARLY_STATUSES = 10_000;

/** A status as kept: Meta's `sent` changes nothing, so none is. */
export type KeptStatus = StatusEvent & { status: "delivered" | "read" | "failed" };

/** A kept status's key. */
export type EarlyStatusKey = Pick<KeptStatus, "messageId" | "status">;

/**
 * Keeps `events` (whose wamid no message carries), each as of `now`; one of a wamid and status is
 * kept. Then drops the oldest kept past `max` and answers those.
 */
export async function keepEarlyStatuses(
  trx: Db,
  events: readonly StatusEvent[],
  now: number,
  bound: RowBound,
): Promise<EarlyStatusKey[]> {
  const rows = new Map<string, KeptStatus>();
  for (const event of events) {
    if (event.status === "sent") continue;
    const key = `${event.messageId}\u0000${event.status}`;
    if (!rows.has(key)) rows.set(key, event as KeptStatus);
  }
  // In key order: two callbacks naming the same wamids in other orders take their keys' locks
  // (PostgreSQL) in one order, so neither waits for the other while holding what it needs.
  const list = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, event]) => event);
  for (let i = 0; i < list.length; i += 100) {
    await trx
      .insertInto("whatsapp_early_statuses")
      .values(
        list.slice(i, i + 100).map((event) => ({
          upstream_id: event.messageId,
          status: event.status,
          at: event.at,
          errors: event.errors.length > 0 ? JSON.stringify(event.errors) : null,
          received_at: now,
        })),
      )
      .onConflict((oc) => oc.columns(["upstream_id", "status"]).doNothing())
      .execute();
  }
  return list.length > 0 ? dropOverLimit(trx, bound) : [];
}

/**
 * Drops the oldest kept statuses past `max` (by when kept, then key), in the caller's transaction,
 * and answers which (dropOldestPastMax: on PostgreSQL concurrent callbacks pass over each other's
 * rows, so none waits for another here and each status dropped is answered once; the table stays
 * within `max` plus what callbacks not yet committed keep, and the next keep trims it again).
 */
async function dropOverLimit(trx: Db, bound: RowBound): Promise<EarlyStatusKey[]> {
  const oldest = await dropOldestPastMax(
    trx,
    { table: "whatsapp_early_statuses", key: ["upstream_id", "status"] },
    bound,
  );
  return oldest.map((row) => ({ messageId: row.upstream_id, status: row.status }));
}

/**
 * Up to a page of kept statuses, in (wamid, status) order after `after`: those of `messageIds`
 * when given, else all. A wamid's delivered comes before its read (the order its statuses apply).
 */
export async function keptStatuses(
  db: Db,
  read: { messageIds?: readonly string[]; after?: EarlyStatusKey },
): Promise<KeptStatus[]> {
  if (read.messageIds?.length === 0) return [];
  let query = db
    .selectFrom("whatsapp_early_statuses")
    .select(["upstream_id", "status", "at", "errors"])
    .orderBy("upstream_id")
    .orderBy("status")
    .limit(EARLY_STATUSES_PAGE);
  if (read.messageIds) query = query.where("upstream_id", "in", [...read.messageIds]);
  const after = read.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb("upstream_id", ">", after.messageId),
        eb.and([eb("upstream_id", "=", after.messageId), eb("status", ">", after.status)]),
      ]),
    );
  }
  const rows = await query.execute();
  return rows.map((row) => ({
    // What applying reads is the wamid; the phone number and recipient are the message's.
    phoneNumberId: "",
    messageId: row.upstream_id,
    status: row.status,
    at: Number(row.at),
    recipientId: "",
    errors: row.errors ? (JSON.parse(row.errors) as MetaError[]) : [],
  }));
}

/** Forgets kept statuses that found their message. */
export async function forgetEarlyStatuses(trx: Db, keys: readonly EarlyStatusKey[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 100) {
    await trx
      .deleteFrom("whatsapp_early_statuses")
      .where((eb) =>
        eb.or(
          keys
            .slice(i, i + 100)
            .map((key) => eb.and([eb("upstream_id", "=", key.messageId), eb("status", "=", key.status)])),
        ),
      )
      .execute();
  }
}

/**
 * Removes up to a page of statuses kept since before `keptBefore` (no message took their wamid:
 * another system's message on a shared number, or a send that failed before recording it), and
 * answers which. Found by a read first, so that a look that finds none writes nothing.
 */
export async function dropExpiredEarlyStatuses(db: Db, keptBefore: number): Promise<EarlyStatusKey[]> {
  const rows = await db
    .selectFrom("whatsapp_early_statuses")
    .select(["upstream_id", "status"])
    .where("received_at", "<", keptBefore)
    .limit(EARLY_STATUSES_PAGE)
    .execute();
  const keys = rows.map((row) => ({ messageId: row.upstream_id, status: row.status }));
  if (keys.length > 0) await forgetEarlyStatuses(db, keys);
  return keys;
}

/** Whether any status is kept: a read, so that a look when none is (nearly always) writes nothing. */
export async function hasEarlyStatuses(db: Db): Promise<boolean> {
  const row = await db.selectFrom("whatsapp_early_statuses").select("upstream_id").limit(1).executeTakeFirst();
  return row !== undefined;
}
