// The WhatsApp channel's own steps on its messages: a send is written `sending` before the upstream
// call and then moved to `sent` or failed; Meta's statuses move it on (`read` after delivered, or
// standing in for a delivery not yet reported); a `sending` message whose process died is failed,
// and the simulator's messages whose process stopped before their statuses are found again.
import { sql } from "kysely";
import type { MessageRow, MessageStatus, NewMessage } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { RollupChanges, withRollups } from "./rollups.js";

/** The states each status may move a message from. */
const SOURCES: Record<"delivered" | "read" | "failed", MessageStatus[]> = {
  delivered: ["sent"],
  read: ["sent", "delivered"],
  failed: ["sent", "delivered"],
};

const MOVED = ["id", "account_id", "recipient", "broadcast_id", "upstream_id"] as const;

/** Writes a WhatsApp send's row (built by messageRow) before its upstream call. */
export async function insertWhatsAppMessage(store: Store, trx: Db, row: NewMessage): Promise<void> {
  await trx.insertInto("messages").values(row).execute();
  const rollups = new RollupChanges();
  rollups.add(row, 1);
  await rollups.write(store, trx);
}

/**
 * Fails a message still `sending`; false when it is not (the send ended another way). Its hold
 * is released, never debited, so the row says it cost nothing, at every level (decision 0160):
 * its credits and upline were the amounts held, which the caller read before.
 */
export async function failSendingMessage(
  store: Store,
  trx: Db,
  id: string,
  failure: { code: string; message: string; at: number },
): Promise<boolean> {
  const failed = await withRollups(store, trx, [id], () =>
    trx
      .updateTable("messages")
      .set({
        status: "failed",
        error_code: failure.code,
        error_message: failure.message,
        credits: 0,
        upline: null,
        lease_until: null,
        done_at: failure.at,
      })
      .where("id", "=", id)
      .where("status", "=", "sending")
      .executeTakeFirst(),
  );
  return Number(failed.numUpdatedRows) > 0;
}

/** Moves a message from `sending` to `sent` with the upstream's id for it. */
export async function markWhatsAppSent(trx: Db, id: string, upstreamId: string, at: number): Promise<void> {
  await trx
    .updateTable("messages")
    .set({ status: "sent", upstream_id: upstreamId, submitted_at: at, lease_until: null })
    .where("id", "=", id)
    .where("status", "=", "sending")
    .execute();
}

/** Up to `limit` messages still `sending` whose lease ran out before `now`. */
export async function staleWhatsAppSends(db: Db, now: number, limit: number) {
  return db
    .selectFrom("messages")
    .select(["id", "account_id", "credits", "meta", "upline"])
    .where("status", "=", sql.lit("sending"))
    .where("lease_until", "<", now)
    .limit(limit)
    .execute();
}

/** Where a read of unfinished WhatsApp sends starts: after this (submitted_at, id); a null id, after every id at that time. */
export interface SentCursor {
  submittedAt: number;
  id: string | null;
}

/**
 * Up to `limit` of `connector`'s messages sent after `after` and at or before `before` that are
 * still `sent` or `delivered`, in (submitted_at, id) order: the simulator's messages whose
 * process stopped before their statuses (channels/whatsapp/lost-statuses.ts). A range of
 * messages_by_connector_submit from `after` on, so a read costs the messages sent since the last
 * one, not every message the connector ever sent (named on SQLite, as awaitingReportQuery does).
 */
export async function unfinishedWhatsAppSends(
  store: Pick<Store, "db" | "engine">,
  read: { connector: string; after: SentCursor; before: number; limit: number },
) {
  const { after } = read;
  const query = sql<Pick<MessageRow, "id" | "recipient" | "status" | "upstream_id" | "submitted_at">>`
    select id, recipient, status, upstream_id, submitted_at
      from messages${sql.raw(store.engine === "sqlite" ? " indexed by messages_by_connector_submit" : "")}
     where connector = ${read.connector}
       and submitted_at >= ${after.submittedAt} and submitted_at <= ${read.before}
       and ${after.id === null ? sql`submitted_at > ${after.submittedAt}` : sql`(submitted_at > ${after.submittedAt} or id > ${after.id})`}
       and status in ('sent', 'delivered')
     order by submitted_at, id
     limit ${read.limit}`;
  return (await query.execute(store.db)).rows;
}

/** The WhatsApp message that Meta's id names, if any. */
export async function whatsAppMessageByUpstreamId(db: Db, upstreamId: string) {
  return db
    .selectFrom("messages")
    .select("id")
    .where("upstream_id", "=", upstreamId)
    .where("channel", "=", "whatsapp")
    .executeTakeFirst();
}

/** Of `upstreamIds` (Meta's wamids), those a WhatsApp message carries: one read for a page of kept statuses. */
export async function knownWhatsAppUpstreamIds(db: Db, upstreamIds: readonly string[]): Promise<Set<string>> {
  if (upstreamIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("messages")
    .select("upstream_id")
    .where("upstream_id", "in", [...upstreamIds])
    .where("channel", "=", "whatsapp")
    .execute();
  return new Set(rows.map((row) => row.upstream_id!));
}

/** A message of the account by numeric id (all digits) or upstream id (wamid). */
export async function findWhatsAppMessage(db: Db, accountId: number, id: string): Promise<MessageRow | undefined> {
  const query = db
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("channel", "=", "whatsapp");
  if (/^\d{1,15}$/.test(id)) return query.where("broadcast_id", "=", String(Number(id))).executeTakeFirst();
  return query.where("upstream_id", "=", id).executeTakeFirst();
}

/** Delivered at `at`; undefined when the message was not in a state to move. */
export async function deliverWhatsAppMessage(store: Store, trx: Db, id: string, at: number, into?: RollupChanges) {
  return withRollups(store, trx, [id], () => deliver(trx, id, at), into);
}

async function deliver(trx: Db, id: string, at: number) {
  const moved = await trx
    .updateTable("messages")
    .set({ status: "delivered", delivered_at: at, done_at: at })
    .where("id", "=", id)
    .where("status", "in", SOURCES.delivered)
    .returning(MOVED)
    .executeTakeFirst();
  if (!moved) {
    // Read came first (and stood in for the delivery time): keep the real one, without moving back.
    await trx
      .updateTable("messages")
      .set({ delivered_at: at })
      .where("id", "=", id)
      .where("status", "=", "read")
      .where((eb) => eb.or([eb("delivered_at", "is", null), eb("delivered_at", ">", at)]))
      .execute();
  }
  return moved;
}

/** Read at `at`, which stands in for the delivery and end times when they are not known yet. */
export async function readWhatsAppMessage(store: Store, trx: Db, id: string, at: number, into?: RollupChanges) {
  return withRollups(
    store,
    trx,
    [id],
    () =>
      trx
        .updateTable("messages")
        .set((eb) => ({
          status: "read",
          read_at: at,
          delivered_at: eb.fn.coalesce("delivered_at", eb.val(at)),
          done_at: eb.fn.coalesce("done_at", eb.val(at)),
        }))
        .where("id", "=", id)
        .where("status", "in", SOURCES.read)
        .returning(MOVED)
        .executeTakeFirst(),
    into,
  );
}

/** Failed after it was sent, with Meta's error. */
export async function failWhatsAppMessage(
  store: Store,
  trx: Db,
  id: string,
  failure: { code: string; message: string; at: number },
  into?: RollupChanges,
) {
  return withRollups(
    store,
    trx,
    [id],
    () =>
      trx
        .updateTable("messages")
        .set({ status: "failed", error_code: failure.code, error_message: failure.message, done_at: failure.at })
        .where("id", "=", id)
        .where("status", "in", SOURCES.failed)
        .returning(MOVED)
        .executeTakeFirst(),
    into,
  );
}
