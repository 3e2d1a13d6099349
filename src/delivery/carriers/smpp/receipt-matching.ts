// Delivery receipts matched to the parts in message_parts and applied, a group in one
// transaction. A receipt names one part by the SMSC's id; a message's report is due when the group
// makes its last pending part final (delivered when every part was, failed when any failed), so
// each message is reported once.
import { sql } from "kysely";
import { jsonbText } from "../../../base/store/jsonb.js";
import type { MessagePartsTable } from "../../../base/store/schema.js";
import type { Db, Store } from "../../../base/store/store.js";
import type { DeliveryReport } from "../../../domain/messages/index.js";
import { reportOf } from "./finished-parts.js";
import { doneAtOf, type Receipt, receiptIdMatches } from "./receipt.js";
import { chunks } from "./stored-parts.js";

export type ReceiptOutcome = "applied" | "duplicate" | "unknown";

/**
 * A receipt to apply. `exactOnly`: its part may not be stored yet, so only its id as given may
 * name it; a converted reading could name another message's part (hex "1000", not stored yet,
 * reads in decimal as "3e8", sent long before).
 */
export type ReceiptToApply = Receipt & { exactOnly?: boolean };

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
    part.done_at = doneAtOf(receipt.doneAt, part.created_at, now);
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
    .all<{ message_id: string; part_index: number }>(trx, [jsonbText(states), Object.keys(states)]);
}
