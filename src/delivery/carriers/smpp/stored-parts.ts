// The parts of SMPP messages in message_parts: storing the ids a message's submit_sm got (a
// message sent again keeps only its latest send's), and reading a message's parts back.
import type { MessagePartsTable } from "../../../base/store/schema.js";
import type { Db, Store } from "../../../base/store/store.js";
import { isUniqueViolation } from "../../../base/store/unavailable.js";

/** Rows per statement: far below both engines' parameter limits. */
export const CHUNK = 500;

export interface SentMessage {
  messageId: string;
  /** The submit_sm_resp message_id of each part, in order. */
  upstreamIds: string[];
  /** When the SMSC answered (epoch ms; stored as the parts' created_at): the write's own time when absent. */
  sentAt?: number;
}

export function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Stores the parts of sent messages, in a transaction of its own. A message sent again (its
 * earlier outcome unknown to the dispatcher) keeps only the parts of its latest send: this write
 * replaces parts stored for an earlier send, and stores nothing for a message whose parts come
 * from a later one. That order matters when the database is away: the parts of a send whose
 * write kept failing (retried until it lands, connector.ts) must not replace, once it is back,
 * those of the message's next send, which the dispatcher recorded meanwhile, or the receipts of
 * that send match nothing (the fault suite's PostgreSQL restart found three messages left
 * `submitted` so). Two writes racing for one message: the later insert fails on the primary key
 * and its write is tried again.
 *
 * A message's text makes the same parts on every send, so parts stored for another send of it
 * are exactly those whose keys (message id, part index) this write's take. So the parts are
 * first simply inserted; only when a key is taken (a message sent before: rare) does the group
 * go through the replacement above. PostgreSQL: one pipelined insert, and on a taken key the
 * transaction is rolled back and the group written again in another (a plain insert, not ON
 * CONFLICT, whose speculative insertion probes each key once more). SQLite: each part inserted
 * where its key is free, and the messages some of whose keys were not replaced, in the same
 * transaction (its writes are serial; nothing can take a key between the two).
 */
export async function storeParts(store: Store, connector: string, group: SentMessage[], now: number): Promise<void> {
  const sentAt = (message: SentMessage) => message.sentAt ?? now;
  // Two sends of one message in a group: the later one's parts.
  const latest = new Map<string, SentMessage>();
  for (const message of group) {
    const seen = latest.get(message.messageId);
    if (!seen || sentAt(seen) <= sentAt(message)) latest.set(message.messageId, message);
  }
  const sent = [...latest.values()];
  if (store.engine === "postgres") {
    try {
      await store.transaction((trx) => store.insertMany(trx, "message_parts", partRows(connector, sent, sentAt)));
      return;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    await store.transaction((trx) => replaceParts(store, trx, connector, sent, sentAt));
    return;
  }
  await store.transaction(async (trx) => {
    const insert = store.statement(
      `insert into message_parts (message_id, part_index, connector, upstream_id, status, created_at, part_count)
       values (?, ?, ?, ?, 'pending', ?, ?) on conflict (message_id, part_index) do nothing`,
    );
    const taken: SentMessage[] = [];
    for (const message of sent) {
      const { messageId, upstreamIds } = message;
      let inserted = 0;
      for (const [index, upstreamId] of upstreamIds.entries()) {
        inserted += await insert.run(trx, [
          messageId,
          index,
          connector,
          upstreamId,
          sentAt(message),
          upstreamIds.length,
        ]);
      }
      if (inserted < upstreamIds.length) taken.push(message);
    }
    if (taken.length > 0) await replaceParts(store, trx, connector, taken, sentAt);
  });
}

/** The rows of the messages' parts, pending. */
function partRows(connector: string, sent: SentMessage[], sentAt: (message: SentMessage) => number) {
  const rows: MessagePartsTable[] = [];
  for (const message of sent) {
    message.upstreamIds.forEach((upstreamId, index) => {
      rows.push({
        message_id: message.messageId,
        part_index: index,
        connector,
        upstream_id: upstreamId,
        status: "pending",
        error_code: null,
        done_at: null,
        created_at: sentAt(message),
        part_count: message.upstreamIds.length,
      });
    });
  }
  return rows;
}

/**
 * Stores the parts of messages whose keys were taken: parts of an earlier send (or of this
 * write, for a message only some of whose keys were free) are replaced; a later send's are kept.
 */
async function replaceParts(
  store: Store,
  trx: Db,
  connector: string,
  sent: SentMessage[],
  sentAt: (message: SentMessage) => number,
) {
  const ids = sent.map((message) => message.messageId);
  /** Messages whose stored parts are of a later send. */
  const later = new Set<string>();
  if (store.engine === "postgres") {
    const times = sent.map(sentAt);
    // One statement, one text whatever the number of messages (a prepared statement,
    // postgres-store.ts): the DELETE runs in its WITH, and the SELECT, reading the table as it
    // was before, names the messages whose parts are newer than this send.
    const rows = await store
      .statement(
        `with gone as (
           delete from message_parts p using unnest(?::text[], ?::bigint[]) as s(id, at)
            where p.message_id = s.id and p.created_at <= s.at)
         select distinct p.message_id from message_parts p
           join unnest(?::text[], ?::bigint[]) as s(id, at) on p.message_id = s.id and p.created_at > s.at`,
      )
      .all<{ message_id: string }>(trx, [ids, times, ids, times]);
    for (const row of rows) later.add(row.message_id);
  } else {
    const remove = store.statement("delete from message_parts where message_id = ? and created_at <= ?");
    const remaining = store.statement("select 1 from message_parts where message_id = ? limit 1");
    for (const message of sent) {
      await remove.run(trx, [message.messageId, sentAt(message)]);
      if ((await remaining.all(trx, [message.messageId])).length > 0) later.add(message.messageId);
    }
  }
  const rows = partRows(
    connector,
    sent.filter((message) => !later.has(message.messageId)),
    sentAt,
  );
  if (rows.length > 0) await store.insertMany(trx, "message_parts", rows);
}

/** A message's parts in order, as its timeline shows them (messages/' MessagePartsReader). */
export function partsOfMessage(db: Db, messageId: string) {
  return db
    .selectFrom("message_parts")
    .select(["part_index", "status", "upstream_id", "error_code", "done_at"])
    .where("message_id", "=", messageId)
    .orderBy("part_index")
    .execute();
}

/**
 * The stored parts of each of `messageIds` that has any, in order (of `connector` only, when
 * given). A message is stored with every part or none (storeParts).
 */
export async function storedPartsOf(
  store: Store,
  messageIds: string[],
  connector?: string,
): Promise<Map<string, MessagePartsTable[]>> {
  const byMessage = new Map<string, MessagePartsTable[]>();
  const add = (parts: MessagePartsTable[]) => {
    for (const part of parts) {
      const list = byMessage.get(part.message_id) ?? [];
      list.push(part);
      byMessage.set(part.message_id, list);
    }
  };
  if (store.engine === "postgres" && connector !== undefined) {
    // Before every SMPP batch (connector.ts sentBefore): one text whatever the batch's size, a
    // prepared statement (postgres-store.ts).
    add(
      await store
        .statement(
          `select * from message_parts where message_id = any(?::text[]) and connector = ?
            order by message_id, part_index`,
        )
        .all<MessagePartsTable>(store.db, [messageIds, connector]),
    );
    return byMessage;
  }
  // By message id alone, the connector compared here: given `connector = ?` as well, SQLite's
  // planner (no statistics) takes message_parts_by_upstream for it once the list holds ten ids,
  // and walks every part the connector stored, a read that grew with the table before every
  // SMPP batch (decision 0137).
  for (const chunk of chunks(messageIds)) {
    const rows = await partsByMessageQuery(store.db, chunk).execute();
    add(connector === undefined ? rows : rows.filter((part) => part.connector === connector));
  }
  return byMessage;
}

/** The parts of `messageIds` (at most CHUNK), by message and part: the primary key's read. */
export function partsByMessageQuery(db: Db, messageIds: string[]) {
  return db
    .selectFrom("message_parts")
    .selectAll()
    .where("message_id", "in", messageIds)
    .orderBy("message_id")
    .orderBy("part_index");
}

/** Removes the parts of messages that retention removed, in its transaction. */
export async function removePartsOf(trx: Db, messageIds: string[]): Promise<void> {
  if (messageIds.length > 0) await trx.deleteFrom("message_parts").where("message_id", "in", messageIds).execute();
}
