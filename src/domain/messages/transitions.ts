// Batched message state changes. Each statement moves only rows that are in a legal source
// state for the target (see core/message-status.ts), so concurrent workers and duplicate
// reports can never move a message twice or backwards. Delivery reports: report-transitions.ts.
import { type RawBuilder, sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import type { Wallet } from "../../base/core/credits.js";
import { ACCOUNT_HOLD, assertTransition } from "../../base/core/message-status.js";
import type { MessageRow, MessageStatus } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Refund, refundMany, uplineRefunds } from "../accounts/index.js";
import { countJobOutcomes, type JobOutcome } from "./jobs.js";
import { ROLLUP_COLUMNS, RollupChanges, type RollupSource } from "./rollups.js";

const MAX_ROWS = 500;

/** `items` in slices of at most `size` (a statement's rows). */
export function chunks<T>(items: T[], size = MAX_ROWS): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function inList(statuses: MessageStatus[]): RawBuilder<unknown> {
  return sql.join(statuses.map((s) => sql`${s}`));
}

/**
 * Claims up to `limit` due queued messages, transactional lane first, each with `attempts`
 * counting the attempt it is claimed for.
 *
 * PostgreSQL: run it in the transaction that will record the outcomes. Each row is locked
 * (FOR NO KEY UPDATE SKIP LOCKED) until that transaction ends, so concurrent workers never
 * share a message, and nothing is written for the claim: a worker that dies (its connection
 * closed, its transaction rolled back) leaves its messages `queued` and at once claimable. A
 * claim written as `dispatching` with a lease cost an update of the wide messages row, four
 * index entries and a lease renewal, and held a dead worker's messages for the lease.
 *
 * SQLite has one process and one dispatcher, which records each outcome before it claims
 * again: a plain read outside a transaction is the claim (a write transaction held while
 * carriers answer would stop every other writer).
 */
export async function claimDueMessages(store: Store, trx: Db, now: number, limit: number): Promise<MessageRow[]> {
  // Literal status: SQLite uses the partial index messages_queued only when it is named.
  const select = "select * from messages where status = 'queued' and due_at <= ? order by lane, due_at limit ?";
  const rows = await store
    .statement(store.engine === "postgres" ? `${select} for no key update skip locked` : select)
    .all<MessageRow>(trx, [now, limit]);
  for (const row of rows) row.attempts += 1;
  return rows;
}

/** A claimed message's states: still `queued`, or `dispatching` when an earlier version's worker leased it. */
const CLAIMED_STATUSES: MessageStatus[] = ["dispatching", "queued"];

/**
 * Of `ids`, those still waiting to be sent (queued, or dispatching), for a record of submits
 * made after the claim that sent them was lost: locked on PostgreSQL until `trx` ends, without
 * waiting for one another worker holds (it is sending that one again: not ours to record).
 */
export async function stillWaiting(store: Store, trx: Db, ids: string[]): Promise<Set<string>> {
  const waiting = new Set<string>();
  for (const part of chunks(ids)) {
    let query = trx.selectFrom("messages").select("id").where("id", "in", part).where("status", "in", CLAIMED_STATUSES);
    if (store.engine === "postgres") query = query.forNoKeyUpdate().skipLocked();
    for (const row of await query.execute()) waiting.add(row.id);
  }
  return waiting;
}

/** CLAIMED_STATUSES in a statement: as parameters, and as literals in a prepared statement's text. */
const CLAIMED = inList(CLAIMED_STATUSES);
export const CLAIMED_SQL = CLAIMED_STATUSES.map((status) => `'${status}'`).join(", ");

export interface Retry {
  id: string;
  dueAt: number;
  code: string;
  message: string;
  attempts: number;
  /** Held with `connectors_down`: since when; null for any other retry. */
  heldSince: number | null;
}

export async function requeueForRetry(trx: Db, items: Retry[]): Promise<number> {
  assertTransition("dispatching", "queued");
  let changed = 0;
  for (const part of chunks(items)) {
    const values = sql.join(
      part.map(
        (i) =>
          sql`(${i.id}, cast(${i.dueAt} as bigint), ${i.code}, ${i.message}, cast(${i.attempts} as integer), cast(${i.heldSince} as bigint))`,
      ),
    );
    const result = await sql`
      with v(mid, v_due, v_code, v_message, v_attempts, v_held) as (values ${values})
      update messages
         set status = 'queued', due_at = v.v_due, lease_until = null, error_code = v.v_code,
             error_message = v.v_message, attempts = v.v_attempts, held_since = v.v_held
        from v
       where messages.id = v.mid and messages.status in (${CLAIMED})`.execute(trx);
    changed += Number(result.numAffectedRows ?? 0);
  }
  return changed;
}

/** Claimed promotional messages whose promotional hours closed: scheduled again for the opening (due `dueAt`). */
export async function scheduleAgain(trx: Db, items: { id: string; dueAt: number }[]): Promise<number> {
  assertTransition("queued", "scheduled");
  let changed = 0;
  for (const part of chunks(items)) {
    const values = sql.join(part.map((i) => sql`(${i.id}, cast(${i.dueAt} as bigint))`));
    const result = await sql`
      with v(mid, v_due) as (values ${values})
      update messages set status = 'scheduled', due_at = v.v_due, lease_until = null
        from v
       where messages.id = v.mid and messages.status in (${CLAIMED})`.execute(trx);
    changed += Number(result.numAffectedRows ?? 0);
  }
  return changed;
}

/**
 * Messages queued again because every connector of their route was down (`connectors_down`),
 * made due now: a connector came back, and they should not sit out the rest of a wait that
 * grew while it was away (up to 10 minutes, dispatcher.ts). Answers how many.
 */
export async function wakeConnectorWaits(trx: Db, now: number): Promise<number> {
  // Literal status: SQLite uses the partial index messages_queued only when it is named.
  const result = await sql`
    update messages set due_at = ${now}
     where status = 'queued' and due_at > ${now} and error_code = 'connectors_down'`.execute(trx);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Messages of these accounts held because an account was not active (decision 0155), made due
 * now: the account is active again. Answers how many.
 */
export async function wakeAccountHolds(trx: Db, accountIds: readonly number[], now: number): Promise<number> {
  let changed = 0;
  for (const part of chunks([...accountIds])) {
    // Literal status: SQLite uses the partial index messages_queued only when it is named.
    const result = await sql`
      update messages set due_at = ${now}
       where status = 'queued' and due_at > ${now} and error_code = ${ACCOUNT_HOLD}
         and account_id in (${sql.join(part)})`.execute(trx);
    changed += Number(result.numAffectedRows ?? 0);
  }
  return changed;
}

/** The accounts that have messages held because an account was not active (a read of the queue). */
export async function accountsWithHolds(db: Db): Promise<number[]> {
  const { rows } = await sql<{ account_id: number }>`
    select distinct account_id from messages where status = 'queued' and error_code = ${ACCOUNT_HOLD}`.execute(db);
  return rows.map((row) => Number(row.account_id));
}

export interface Failure {
  id: string;
  code: string;
  message: string;
  at: number;
  /** The connector that refused it, and the reason its error_codes map the refusal's code to. */
  connector?: string;
  reason?: { reason: string; carrierCode: string } | null;
  /** The source address the refusing carrier got when not the message's sender (decision 0187). */
  source?: string;
}

interface ChargedRow extends RollupSource {
  id: string;
  account_id: number;
  wallet: string;
  credits: number;
  channel: string;
  created_at: number;
  broadcast_id: string;
  job_id: number | null;
  recipient: string;
  done_at: number;
  error_code: string;
  error_message: string;
  error_reason: string | null;
  carrier_code: string | null;
  upline: string | null;
}

/** Fails messages that never reached a carrier (from queued or dispatching) and refunds them. */
export async function failBeforeCarrier(
  store: Store,
  trx: Db,
  clock: Clock,
  items: Failure[],
  /** The caller's changes, which it writes last in its transaction; else written here, last. */
  into?: RollupChanges,
  /** The rows as the dispatcher claimed them (their connector before), as markSubmitted takes them. */
  claimed?: readonly { id: string; connector: string | null }[],
): Promise<ChargedRow[]> {
  const failed: ChargedRow[] = [];
  // A carrier's refusal names its connector: the message keeps it (support's "which carrier
  // refused it", the connector filter and its rollups). Its connector before, for the rollups'
  // move: from the claimed rows, else read from the table before the update.
  const named = items.filter((i) => i.connector !== undefined);
  const connectorBefore = new Map<string, string | null>(
    claimed && named.length > 0 ? claimed.map((row) => [row.id, row.connector]) : [],
  );
  for (const part of claimed ? [] : chunks(named)) {
    const rows = await trx
      .selectFrom("messages")
      .select(["id", "connector"])
      .where(
        "id",
        "in",
        part.map((i) => i.id),
      )
      .execute();
    for (const row of rows) connectorBefore.set(row.id, row.connector);
  }
  for (const part of chunks(items)) {
    const values = sql.join(
      part.map(
        (i) =>
          sql`(${i.id}, ${i.code}, ${i.message}, cast(${i.at} as bigint), cast(${i.reason?.reason ?? null} as text), cast(${i.reason?.carrierCode ?? null} as text), cast(${i.connector ?? null} as text), cast(${i.source ?? null} as text))`,
      ),
    );
    const result = await sql<ChargedRow>`
      with v(mid, v_code, v_message, v_at, v_reason, v_carrier, v_connector, v_source) as (values ${values})
      update messages
         set status = 'failed', error_code = v.v_code, error_message = v.v_message, done_at = v.v_at, lease_until = null,
             error_reason = v.v_reason, carrier_code = v.v_carrier, connector = coalesce(v.v_connector, messages.connector),
             carrier_source = coalesce(v.v_source, messages.carrier_source)
        from v
       where messages.id = v.mid and messages.status in (${CLAIMED})
      returning id, wallet, credits, broadcast_id, job_id, error_message, error_reason, carrier_code, upline, ${sql.raw(ROLLUP_COLUMNS.join(", "))}`.execute(
      trx,
    );
    failed.push(...result.rows);
  }
  const note = "refund: not delivered to a carrier";
  await refundMany(
    trx,
    clock,
    failed.flatMap((row) => [
      { accountId: row.account_id, wallet: row.wallet as Wallet, amount: row.credits, ref: row.id, note },
      ...uplineRefunds(row.upline, { wallet: row.wallet as Wallet, ref: row.id, note }),
    ]),
  );
  const now = clock.now().getTime();
  await countJobOutcomes(
    trx,
    failed.map((row) => ({ job_id: row.job_id, status: "failed" })),
    now,
  );
  // Pending before (queued or dispatching), under its connector before (none, or a retry's).
  const rollups = into ?? new RollupChanges();
  for (const row of failed) {
    const connector = connectorBefore.has(row.id) ? connectorBefore.get(row.id)! : row.connector;
    rollups.move({ ...row, status: "queued", connector }, row);
  }
  if (!into) await rollups.write(store, trx);
  return failed;
}

export interface Cancellation {
  /** Messages cancelled, including a bulk job's recipients that were not messages yet. */
  count: number;
  /** Milli-credits refunded. */
  credits: number;
  /** Queue ids of the cancelled message rows. */
  ids: string[];
}

/**
 * Cancels the scheduled messages of an account that are not released yet (one message by
 * queue id, or everything still scheduled of a broadcast or bulk job, including the parts the
 * expander has not turned into messages) and refunds them. A message already queued or sent
 * is left alone, but with `waiting` a queued one not due yet (a retry's wait, its connectors
 * down, its account held) is cancelled too: the dispatcher claims only due messages, so none
 * it holds, or sent without recording it yet, is among them (decision 0176).
 */
export async function cancelScheduled(
  store: Store,
  trx: Db,
  clock: Clock,
  accountId: number,
  target: { queueId: string } | { broadcastId: string },
  options: {
    /**
     * A bulk job's cancel: its recipients the expander has not turned into messages yet are
     * cancelled too, whether they are due or not (the expander advances a part only while it is
     * pending, so none of them can become a message afterwards).
     */
    unexpanded?: boolean;
    /** Queued messages not due yet are cancelled too. */
    waiting?: boolean;
  } = {},
): Promise<Cancellation> {
  assertTransition("scheduled", "cancelled");
  assertTransition("queued", "cancelled");
  const now = clock.now().getTime();
  let update = trx
    .updateTable("messages")
    .set({ status: "cancelled", done_at: now, error_code: "cancelled", error_message: "Cancelled by the client." })
    .where("account_id", "=", accountId)
    .where((eb) =>
      options.waiting
        ? eb.or([eb("status", "=", "scheduled"), eb.and([eb("status", "=", "queued"), eb("due_at", ">", now)])])
        : eb("status", "=", "scheduled"),
    );
  update =
    "queueId" in target
      ? update.where("id", "=", target.queueId)
      : update.where("broadcast_id", "=", target.broadcastId);
  const rows = await update.returning(["id", "wallet", "credits", "job_id", "upline", ...ROLLUP_COLUMNS]).execute();
  let parts: {
    id: number;
    job_id: number;
    wallet: string;
    credits: number;
    count: number;
    next_index: number;
    upline: string | null;
  }[] = [];
  if ("broadcastId" in target) {
    let partUpdate = trx
      .updateTable("bulk_parts")
      .set({ status: "cancelled" })
      .where("account_id", "=", accountId)
      .where("broadcast_id", "=", target.broadcastId)
      .where("status", "=", "pending");
    if (!options.unexpanded) partUpdate = partUpdate.where("due_at", ">", now);
    parts = await partUpdate
      .returning(["id", "job_id", "wallet", "credits", "count", "next_index", "upline"])
      .execute();
  }
  const note = "refund: scheduled message cancelled";
  const refunds: Refund[] = rows.map((row) => ({
    accountId: row.account_id,
    wallet: row.wallet as Wallet,
    amount: row.credits,
    ref: row.id,
    note,
  }));
  const uplines = rows.flatMap((row) => uplineRefunds(row.upline, { wallet: row.wallet as Wallet, ref: row.id, note }));
  const outcomes: JobOutcome[] = rows.map((row) => ({ job_id: row.job_id, status: "cancelled" }));
  let count = rows.length;
  for (const part of parts) {
    const left = part.count - part.next_index;
    count += left;
    const partRefund = {
      wallet: part.wallet as Wallet,
      ref: `bulk_part:${part.id}`,
      note: `refund: ${left} ${options.unexpanded ? "unsent" : "scheduled"} messages of a bulk job cancelled`,
    };
    refunds.push({ ...partRefund, accountId, amount: left * part.credits });
    uplines.push(...uplineRefunds(part.upline, partRefund, left));
    outcomes.push({ job_id: part.job_id, status: "cancelled", count: left });
  }
  await refundMany(trx, clock, [...refunds, ...uplines]);
  await countJobOutcomes(trx, outcomes, now);
  // Pending before; a cancelled message counts nowhere.
  const rollups = new RollupChanges();
  for (const row of rows) rollups.add({ ...row, status: "scheduled" }, -1);
  await rollups.write(store, trx);
  // The account's own refund: its ancestors' are theirs.
  return { count, credits: refunds.reduce((sum, r) => sum + r.amount, 0), ids: rows.map((row) => row.id) };
}

/** Scheduled messages whose time has come become queued. */
export async function releaseDueScheduled(store: Store, now: number, limit = 5000): Promise<number> {
  assertTransition("scheduled", "queued");
  const result = await sql`
    update messages set status = 'queued'
     where id in (select id from messages where status = 'scheduled' and due_at <= ${now} limit ${limit})
       and status = 'scheduled'`.execute(store.db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Messages left `dispatching` whose lease expired go back to the queue. Claims no longer write
 * `dispatching` on PostgreSQL (claimDueMessages); this returns what a worker of an earlier
 * version held when it died, during an upgrade.
 */
export async function requeueExpiredLeases(store: Store, now: number): Promise<number> {
  const result = await sql`
    update messages set status = 'queued', lease_until = null
     where status = 'dispatching' and lease_until < ${now}`.execute(store.db);
  return Number(result.numAffectedRows ?? 0);
}

/** Puts every message in `dispatching` back in the queue: for SQLite's one dispatcher, which held them all before it stopped. */
export async function requeueAllDispatching(db: Db): Promise<void> {
  await sql`update messages set status = 'queued', lease_until = null where status = 'dispatching'`.execute(db);
}
