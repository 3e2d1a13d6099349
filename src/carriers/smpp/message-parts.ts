// The parts of SMPP messages in message_parts: storing the ids a message's submit_sm got, and
// applying a group of delivery receipts in one transaction. A receipt names one part by the
// SMSC's id; a message's report is due when the group makes its last pending part final
// (delivered when every part was, failed when any failed), so each message is reported once.
import { sql } from "kysely";
import { awaitingReportPage, type DeliveryReport, messageAwaitsReport } from "../../messages/index.js";
import type { MessagePartsTable } from "../../store/schema.js";
import type { Db, Store } from "../../store/store.js";
import { isUniqueViolation } from "../../store/unavailable.js";
import { meaningOfStat, type Receipt, receiptIdMatches } from "./receipt.js";

/** Rows per statement: far below both engines' parameter limits. */
const CHUNK = 500;

export type ReceiptOutcome = "applied" | "duplicate" | "unknown";

/**
 * A receipt to apply. `exactOnly`: its part may not be stored yet, so only its id as given may
 * name it; a converted reading could name another message's part (hex "1000", not stored yet,
 * reads in decimal as "3e8", sent long before).
 */
export type ReceiptToApply = Receipt & { exactOnly?: boolean };

export interface SentMessage {
  messageId: string;
  /** The submit_sm_resp message_id of each part, in order. */
  upstreamIds: string[];
  /** When the SMSC answered (epoch ms; stored as the parts' created_at): the write's own time when absent. */
  sentAt?: number;
}

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** The ids under which a receipt's id may have been stored (SMSCs write hex ids in decimal). */
export function receiptIdCandidates(id: string): string[] {
  const candidates = new Set([id, id.toLowerCase(), id.toUpperCase()]);
  if (/^\d+$/.test(id)) {
    const value = BigInt(id);
    candidates.add(value.toString());
    // Some SMSCs pad their hex ids with zeros to a fixed width.
    for (const width of [0, 8, 10, 16]) {
      const hex = value.toString(16).padStart(width, "0");
      candidates.add(hex);
      candidates.add(hex.toUpperCase());
    }
  }
  return [...candidates];
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
 * Every part of the messages that have a part of `connector` stored under one of `upstreamIds`:
 * the parts stored under those ids, then the other parts of the messages that have more than
 * one (or whose count is not stored: rows from before migration 0024).
 */
async function partsOfMessagesWith(store: Store, trx: Db, connector: string, upstreamIds: string[]) {
  const named = await partsWithIds(store, trx, connector, upstreamIds);
  const several = [
    ...new Set(named.filter((part) => part.part_count === null || part.part_count > 1).map((part) => part.message_id)),
  ];
  return several.length > 0 ? [...named, ...(await partsOf(store, trx, several))] : named;
}

/** The parts of `connector` stored under one of `upstreamIds`. */
async function partsWithIds(store: Store, trx: Db, connector: string, upstreamIds: string[]) {
  if (store.engine === "postgres") {
    // One text whatever the number of ids: a prepared statement (postgres-store.ts).
    return store
      .statement("select * from message_parts where connector = ? and upstream_id = any(?::text[])")
      .all<MessagePartsTable>(trx, [connector, upstreamIds]);
  }
  const rows: MessagePartsTable[] = [];
  for (const chunk of chunks(upstreamIds)) {
    const query = trx
      .selectFrom("message_parts")
      .selectAll()
      .where("connector", "=", connector)
      .where("upstream_id", "in", chunk);
    rows.push(...(await query.execute()));
  }
  return rows;
}

/** Every part of the messages. */
async function partsOf(store: Store, trx: Db, messageIds: string[]) {
  if (store.engine === "postgres") {
    return store
      .statement("select * from message_parts where message_id = any(?::text[])")
      .all<MessagePartsTable>(trx, [messageIds]);
  }
  const rows: MessagePartsTable[] = [];
  for (const chunk of chunks(messageIds)) {
    rows.push(...(await trx.selectFrom("message_parts").selectAll().where("message_id", "in", chunk).execute()));
  }
  return rows;
}

/** Every part of the messages, locked in one order (no deadlock between two groups). */
async function lockedPartsOf(trx: Db, messageIds: string[]) {
  const rows: MessagePartsTable[] = [];
  for (const chunk of chunks(messageIds.sort())) {
    const query = trx
      .selectFrom("message_parts")
      .selectAll()
      .where("message_id", "in", chunk)
      .orderBy("message_id")
      .orderBy("part_index")
      .forUpdate();
    rows.push(...(await query.execute()));
  }
  return rows;
}

/** What a group of receipts found: each message's parts, and the parts by their lower-case id. */
class FoundParts {
  readonly byMessage = new Map<string, MessagePartsTable[]>();
  readonly byId = new Map<string, MessagePartsTable[]>();

  constructor(private readonly connector: string) {}

  /** Reads these messages' parts again (as locked), in place of what was found before. */
  refresh(messageIds: string[], rows: MessagePartsTable[]): void {
    for (const messageId of messageIds) {
      for (const part of this.byMessage.get(messageId) ?? []) {
        const key = part.upstream_id.toLowerCase();
        const same = (this.byId.get(key) ?? []).filter((row) => row !== part);
        if (same.length > 0) this.byId.set(key, same);
        else this.byId.delete(key);
      }
      this.byMessage.delete(messageId);
    }
    this.add(rows);
  }

  add(rows: MessagePartsTable[]): void {
    for (const row of rows) {
      const parts = this.byMessage.get(row.message_id) ?? [];
      if (parts.some((part) => part.part_index === row.part_index)) continue;
      parts.push(row);
      parts.sort((a, b) => a.part_index - b.part_index);
      this.byMessage.set(row.message_id, parts);
      if (row.connector !== this.connector) continue;
      const key = row.upstream_id.toLowerCase();
      const same = this.byId.get(key) ?? [];
      same.push(row);
      this.byId.set(key, same);
    }
  }

  /** Parts stored under the receipt's id as it is (any case). */
  exact(id: string): MessagePartsTable[] {
    return this.byId.get(id.toLowerCase()) ?? [];
  }

  /** Parts whose id the receipt's may be written for (decimal for hex, padded). */
  converted(id: string): MessagePartsTable[] {
    const found = new Set<MessagePartsTable>();
    for (const candidate of receiptIdCandidates(id)) {
      for (const row of this.byId.get(candidate.toLowerCase()) ?? []) {
        if (receiptIdMatches(id, row.upstream_id)) found.add(row);
      }
    }
    return [...found];
  }
}

/**
 * The part a receipt is for, and whether its id as given names it: that wins over a converted
 * reading (none with `exactOnly`); then the one still waiting, the newest first (an id the SMSC reused).
 */
function partFor(found: FoundParts, receipt: ReceiptToApply): { part: MessagePartsTable; exact: boolean } | undefined {
  const exact = found.exact(receipt.upstreamId);
  const pool = exact.length > 0 || receipt.exactOnly ? exact : found.converted(receipt.upstreamId);
  const waiting = (row: MessagePartsTable) => (row.status === "pending" ? 0 : 1);
  const part = pool.sort((a, b) => waiting(a) - waiting(b) || b.created_at - a.created_at)[0];
  return part && { part, exact: exact.length > 0 };
}

/**
 * Applies final receipts (delivered or failed) inside `trx`: the parts they name become final,
 * and each message whose last pending part they made final gets its report. A receipt for a part
 * already final is a duplicate; one that names no stored part is unknown (its parts may not be
 * stored yet), and so is one whose id only in a converted reading names a final part: its own
 * part, under its id as given, may be the one not stored yet.
 *
 * Several processes may apply receipts at once on PostgreSQL. A part becomes final only from
 * pending (the UPDATE says which it changed), so of two receipts for one part only one applies.
 * The parts of a message of several parts are locked first, so of two receipts for two of its
 * parts the later sees the other's and reports; a one-part message needs no lock (the locks
 * cost the server about a fifth of this path's CPU).
 */
export async function applyReceipts(
  store: Store,
  trx: Db,
  connector: string,
  receipts: ReceiptToApply[],
  now: number,
): Promise<{ outcomes: ReceiptOutcome[]; reports: DeliveryReport[] }> {
  const found = new FoundParts(connector);
  found.add(await partsOfMessagesWith(store, trx, connector, [...new Set(receipts.map((r) => r.upstreamId))]));
  const unmatched = receipts.filter((receipt) => !receipt.exactOnly && found.exact(receipt.upstreamId).length === 0);
  if (unmatched.length > 0) {
    const candidates = new Set(unmatched.flatMap((receipt) => receiptIdCandidates(receipt.upstreamId)));
    found.add(await partsOfMessagesWith(store, trx, connector, [...candidates]));
  }
  // SQLite's write transactions are serial already (BEGIN IMMEDIATE).
  const concatenated = [...found.byMessage].filter(([, parts]) => parts.length > 1).map(([id]) => id);
  if (store.engine === "postgres" && concatenated.length > 0) {
    found.refresh(concatenated, await lockedPartsOf(trx, concatenated));
  }

  const outcomes: ReceiptOutcome[] = [];
  const changed = new Map<MessagePartsTable, number>();
  for (const receipt of receipts) {
    const match = partFor(found, receipt);
    if (!match) {
      outcomes.push("unknown");
      continue;
    }
    const { part } = match;
    if (part.status !== "pending") {
      // A report lost with a crash after this part's commit is sent by the next start (unreportedMessages).
      outcomes.push(match.exact ? "duplicate" : "unknown");
      continue;
    }
    part.status = receipt.status === "delivered" ? "delivered" : "failed";
    part.done_at = receipt.doneAt ?? now;
    part.error_code = part.status === "failed" ? `${receipt.stat}${receipt.err ? `/${receipt.err}` : ""}` : null;
    changed.set(part, outcomes.length);
    outcomes.push("applied");
  }

  const applied = new Set<string>();
  for (const chunk of chunks([...changed.keys()])) {
    const rows =
      store.engine === "postgres" ? await finishPartsPg(store, trx, chunk) : await finishPartsSqlite(trx, chunk);
    for (const row of rows) applied.add(`${row.message_id}\u0000${row.part_index}`);
  }

  const reported = new Set<string>();
  for (const [part, index] of changed) {
    // Another process made this one-part message final between our read and our UPDATE.
    if (!applied.has(`${part.message_id}\u0000${part.part_index}`)) outcomes[index] = "duplicate";
    else reported.add(part.message_id);
  }
  const reports: DeliveryReport[] = [];
  for (const messageId of reported) {
    const report = reportOf(connector, found.byMessage.get(messageId)!, now);
    if (report) reports.push(report);
  }
  return { outcomes, reports };
}

/** Makes final the parts still pending of `parts` (their new status set on them): those it changed. */
async function finishPartsSqlite(trx: Db, parts: MessagePartsTable[]) {
  const values = sql.join(
    parts.map(
      (part) =>
        sql`(${part.message_id}, cast(${part.part_index} as integer), ${part.status}, ${part.error_code}, cast(${part.done_at} as bigint))`,
    ),
  );
  const result = await sql<{ message_id: string; part_index: number }>`
    with v(v_message, v_index, v_status, v_error, v_done) as (values ${values})
    update message_parts
       set status = v.v_status, error_code = v.v_error, done_at = v.v_done
      from v
     where message_parts.message_id = v.v_message and message_parts.part_index = v.v_index
       and message_parts.status = 'pending'
    returning message_parts.message_id, message_parts.part_index`.execute(trx);
  return result.rows;
}

/**
 * PostgreSQL: no join (as markSubmitted): the parts are found by key and read their new state
 * from one jsonb object, by message id and part index. Joined with the values, the planner
 * (which cannot know that the parts named are exactly pending ones) may compare every pair.
 */
async function finishPartsPg(store: Store, trx: Db, parts: MessagePartsTable[]) {
  const states: Record<string, Record<string, unknown[]>> = {};
  for (const part of parts) {
    states[part.message_id] ??= {};
    states[part.message_id]![String(part.part_index)] = [part.status, part.error_code, part.done_at];
  }
  // One text whatever the number of parts: a prepared statement (postgres-store.ts).
  return store
    .statement(
      `update message_parts as p
          set status = v.states -> p.message_id -> p.part_index::text ->> 0,
              error_code = v.states -> p.message_id -> p.part_index::text ->> 1,
              done_at = (v.states -> p.message_id -> p.part_index::text ->> 2)::bigint
         from (select ?::jsonb as states) as v
        where p.message_id = any(?::text[]) and p.status = 'pending'
          and v.states -> p.message_id -> p.part_index::text is not null
       returning p.message_id, p.part_index`,
    )
    .all<{ message_id: string; part_index: number }>(trx, [JSON.stringify(states), Object.keys(states)]);
}

/**
 * Reports of messages this connector submitted whose parts are all final but which are still
 * `submitted`: their report was lost (a crash between a receipt's commit and the report's).
 * Read a page at a time by submitted_at, for messages submitted before `before`.
 */
export async function unreportedMessages(
  store: Store,
  connector: string,
  before: number,
  after: { submittedAt: number; id: string } | null,
  limit: number,
  now: number,
): Promise<{ reports: DeliveryReport[]; next: { submittedAt: number; id: string } | null }> {
  const page = await awaitingReportPage(store.db, connector, before, after, limit);
  if (page.length === 0) return { reports: [], next: null };
  const reports = await reportsOfFinishedParts(
    store,
    connector,
    page.map((row) => row.id),
    now,
  );
  const last = page.at(-1)!;
  return {
    reports,
    next: page.length < limit ? null : { submittedAt: Number(last.submitted_at), id: last.id },
  };
}

/** The reports of those of `messageIds` whose stored parts are all final (none for one without parts). */
export async function reportsOfFinishedParts(
  store: Store,
  connector: string,
  messageIds: string[],
  now: number,
): Promise<DeliveryReport[]> {
  return reportsOfParts(connector, await storedPartsOf(store, messageIds), now);
}

/** The reports of the messages whose parts (by message) are all final. */
export function reportsOfParts(
  connector: string,
  byMessage: ReadonlyMap<string, MessagePartsTable[]>,
  now: number,
): DeliveryReport[] {
  const reports: DeliveryReport[] = [];
  for (const parts of byMessage.values()) {
    const report = reportOf(connector, parts, now);
    if (report) reports.push(report);
  }
  return reports;
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
  for (const chunk of chunks(messageIds)) {
    let query = store.db.selectFrom("message_parts").selectAll().where("message_id", "in", chunk);
    if (connector !== undefined) query = query.where("connector", "=", connector);
    add(await query.orderBy("message_id").orderBy("part_index").execute());
  }
  return byMessage;
}

/** How long the parts of a reported message are kept: receipts come within the SMSC's validity period (48–72 h at most). */
export const PARTS_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** After this long a part's receipt will never come: its parts go even when the message never got a report. */
export const PARTS_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Deletes, at most `limit` messages' worth a call, the parts of messages sent more than
 * PARTS_RETENTION_MS ago whose parts are all final and which are no longer `submitted` (one
 * still waiting for its report keeps them for the start-up sweep), and every part older than
 * PARTS_MAX_AGE_MS. Answers how many messages' parts went.
 */
export async function pruneParts(db: Db, now: number, limit = 2_000): Promise<number> {
  const expired = await db
    .selectFrom("message_parts")
    .select("message_id")
    .distinct()
    .where("created_at", "<", now - PARTS_MAX_AGE_MS)
    .limit(limit)
    .execute();
  const reported = await db
    .selectFrom("message_parts")
    .select("message_id")
    .where("created_at", "<", now - PARTS_RETENTION_MS)
    .where((eb) => eb.not(messageAwaitsReport(eb.ref("message_parts.message_id"))))
    .groupBy("message_id")
    .having((eb) => eb.fn.sum(eb.case().when("status", "=", "pending").then(1).else(0).end()), "=", 0)
    .limit(limit)
    .execute();
  const gone = [...new Set([...expired, ...reported].map((row) => row.message_id))];
  for (let i = 0; i < gone.length; i += CHUNK) {
    await db
      .deleteFrom("message_parts")
      .where("message_id", "in", gone.slice(i, i + CHUNK))
      .execute();
  }
  return gone.length;
}

/** The message's report once every part is final, else null. */
export function reportOf(connector: string, parts: MessagePartsTable[], now: number): DeliveryReport | null {
  if (parts.length === 0 || parts.some((row) => row.status === "pending")) return null;
  const at = Math.max(...parts.map((row) => row.done_at ?? 0)) || now;
  const upstreamId = parts[0]!.upstream_id;
  const failed = parts.find((row) => row.status === "failed");
  if (!failed) return { connector, upstreamId, status: "delivered", at };
  const [stat = "UNDELIV", err] = (failed.error_code ?? "UNDELIV").split("/");
  const where = parts.length > 1 ? ` for part ${failed.part_index + 1} of ${parts.length}` : "";
  return {
    connector,
    upstreamId,
    status: "failed",
    at,
    code: stat,
    message: `The carrier reported ${stat}${err ? ` (err ${err})` : ""}${where}: ${meaningOfStat(stat)}.`,
  };
}
