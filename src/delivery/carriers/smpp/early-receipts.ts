// SMPP receipts kept in `early_receipts` (migration 0055): a receipt that names no stored part
// at the connector's first look (its part's write had not committed: this process's, or another
// process's, as with two workers bound to one SMSC account the SMSC hands a part's receipt to
// either bind). It is kept in the transaction that found no part, before the SMSC hears it was
// taken; the connector still looks again from memory, and every connector of every process
// looks every few seconds for kept receipts of its connector, so one that the process which
// answered it never applied (killed, stopped) is applied once its part is stored. Bounded as
// early reports are: per connector (the oldest dropped first) and in age. Of two receipts of one
// id that both came before its part was stored (DELIVRD, then UNDELIV), the first the gateway
// took applies, in whichever process applies either (the same rule as early reports,
// domain/messages/early-reports.ts firstReportsFirst): the kept one, which is the first of its
// id, goes before any other of its id.
import { dropOldestPastMax, type RowBound } from "../../../base/store/bounded-table.js";
import type { Engine } from "../../../base/store/engine.js";
import type { EarlyReceiptsTable } from "../../../base/store/schema.js";
import type { Db, Store } from "../../../base/store/store.js";
import { type DeliveryReport, firstReportsFirst, reportKeyOf } from "../../../domain/messages/index.js";
import type { Receipt } from "./receipt.js";
import type { ReceiptOutcome, ReceiptToApply } from "./receipt-matching.js";
import { chunks } from "./stored-parts.js";

/** A receipt as kept, with when it came. */
export type KeptReceipt = Receipt & { status: "delivered" | "failed"; receivedAt: number };

/** Kept receipts per connector; past it the oldest are dropped. */
export const MAX_KEPT_PER_CONNECTOR = 10_000;
/** How long a kept receipt waits for its part: longer than an SMSC keeps a message. */
export const KEEP_RECEIPT_MS = 72 * 3600_000;

/**
 * Keeps receipts that named no stored part (in the caller's transaction); the first of an id is
 * kept. Answers how many of the connector's oldest this transaction dropped to stay within `max`
 * (dropOldestPastMax: a receipt another process drops at the same time is its count).
 */
export async function keepReceipts(
  trx: Db,
  connector: string,
  receipts: KeptReceipt[],
  bound: RowBound,
): Promise<number> {
  if (receipts.length === 0) return 0;
  // The first of an id in the group, as the table keeps the first of an id across groups.
  const unique = new Map<string, KeptReceipt>();
  for (const receipt of receipts) if (!unique.has(receipt.upstreamId)) unique.set(receipt.upstreamId, receipt);
  await trx
    .insertInto("early_receipts")
    .values(
      [...unique.values()].map((receipt) => ({
        connector,
        upstream_id: receipt.upstreamId,
        status: receipt.status,
        stat: receipt.stat,
        err: receipt.err,
        done_at: receipt.doneAt,
        received_at: receipt.receivedAt,
      })),
    )
    .onConflict((oc) => oc.columns(["connector", "upstream_id"]).doNothing())
    .execute();
  const dropped = await dropOldestPastMax(
    trx,
    { table: "early_receipts", key: ["upstream_id"], scope: { connector } },
    bound,
  );
  return dropped.length;
}

/**
 * In the transaction that applied `receipts` (their `outcomes`): those kept that applied now, or
 * found their part final, are forgotten; those to keep (`keepAt`) that named no part are kept.
 * Answers how many of the connector's oldest were dropped.
 */
export async function settleKept(
  trx: Db,
  engine: Engine,
  connector: string,
  receipts: readonly (Receipt & { keepAt?: number; kept?: boolean })[],
  outcomes: readonly ReceiptOutcome[],
): Promise<number> {
  const forget: string[] = [];
  const keep: KeptReceipt[] = [];
  receipts.forEach((receipt, index) => {
    const unknown = outcomes[index] === "unknown";
    if (receipt.kept && !unknown) forget.push(receipt.upstreamId);
    else if (receipt.keepAt !== undefined && !receipt.kept && unknown && receipt.status !== "other") {
      keep.push({ ...receipt, status: receipt.status, receivedAt: receipt.keepAt });
    }
  });
  if (forget.length > 0) await forgetReceipts(trx, connector, forget);
  return keepReceipts(trx, connector, keep, { engine, max: MAX_KEPT_PER_CONNECTOR });
}

/**
 * The kept receipt of each of `upstreamIds` that has one: the first of that id the gateway took.
 * Read by every group of receipts: a look by key, and on PostgreSQL one statement text whatever
 * the number of ids (a prepared statement, postgres-store.ts).
 */
export async function keptReceiptsOf(
  store: Store,
  trx: Db,
  connector: string,
  upstreamIds: string[],
): Promise<KeptReceipt[]> {
  const ids = [...new Set(upstreamIds)];
  if (store.engine === "postgres") {
    const rows = await store
      .statement("select * from early_receipts where connector = ? and upstream_id = any(?::text[])")
      .all<EarlyReceiptsTable>(trx, [connector, ids]);
    return rows.map(keptReceiptOf);
  }
  const kept: KeptReceipt[] = [];
  for (const part of chunks(ids)) {
    const rows = await trx
      .selectFrom("early_receipts")
      .selectAll()
      .where("connector", "=", connector)
      .where("upstream_id", "in", part)
      .execute();
    kept.push(...rows.map(keptReceiptOf));
  }
  return kept;
}

/** A receipt as a delivery report, for firstReportsFirst: the same status, time and code as its kept copy. */
function asReport(connector: string, receipt: Receipt, keptSince?: number): DeliveryReport {
  const failed = receipt.status === "failed";
  return {
    connector,
    upstreamId: receipt.upstreamId,
    status: failed ? "failed" : "delivered",
    at: receipt.doneAt ?? -1,
    code: failed ? `${receipt.stat}/${receipt.err ?? ""}` : null,
    ...(keptSince === undefined ? {} : { keptSince }),
  };
}

/**
 * Orders a group's receipts so that, of each id, the first the gateway took applies first
 * (firstReportsFirst): the kept one of an id (`kept`, early_receipts holds the first of an id,
 * whichever process took it) when the group holds it, otherwise the table's, added to the group
 * (`kept`: forgotten once it applies; only by its id as given when the group's copy of its id is
 * so looked up); for an id with none kept, its first in the group. The others follow as they
 * came: their part is final by then, so they are duplicates. `index`: where each of `receipts`
 * is in the order.
 */
export function firstReceiptsFirst<R extends ReceiptToApply & { kept?: boolean }>(
  connector: string,
  receipts: readonly R[],
  kept: readonly KeptReceipt[],
): { ordered: (R | (ReceiptToApply & { kept: true }))[]; index: number[] } {
  if (kept.length === 0) return { ordered: [...receipts], index: receipts.map((_, i) => i) };
  const reports = receipts.map((receipt) => asReport(connector, receipt));
  const keptReports = new Map<string, DeliveryReport>();
  const keptReceipt = new Map<DeliveryReport, KeptReceipt>();
  for (const receipt of kept) {
    const report = asReport(connector, receipt, receipt.receivedAt);
    keptReports.set(reportKeyOf(report), report);
    keptReceipt.set(report, receipt);
  }
  const { first, fromTable } = firstReportsFirst(reports, keptReports);
  const exactOnly = new Map<string, boolean>();
  for (const receipt of receipts) {
    if (!exactOnly.has(receipt.upstreamId)) exactOnly.set(receipt.upstreamId, receipt.exactOnly === true);
  }
  const tabled = new Set(fromTable);
  const position = new Map<DeliveryReport, number>(reports.map((report, i) => [report, i]));
  const ordered: (R | (ReceiptToApply & { kept: true }))[] = [];
  const index: number[] = new Array(receipts.length);
  for (const report of first) {
    if (tabled.has(report)) {
      const { receivedAt: _at, ...receipt } = keptReceipt.get(report)!;
      ordered.push({ ...receipt, exactOnly: exactOnly.get(receipt.upstreamId) === true, kept: true });
      continue;
    }
    const i = position.get(report)!;
    index[i] = ordered.length;
    // The kept one's own copy: forgotten there once it applies.
    ordered.push(keptReports.has(reportKeyOf(report)) ? { ...receipts[i]!, kept: true } : receipts[i]!);
  }
  receipts.forEach((receipt, i) => {
    if (index[i] !== undefined) return;
    index[i] = ordered.length;
    ordered.push(receipt);
  });
  return { ordered, index };
}

/** Forgets kept receipts (applied, or found a part already final). */
export async function forgetReceipts(trx: Db, connector: string, upstreamIds: string[]): Promise<void> {
  for (let i = 0; i < upstreamIds.length; i += 500) {
    await trx
      .deleteFrom("early_receipts")
      .where("connector", "=", connector)
      .where("upstream_id", "in", upstreamIds.slice(i, i + 500))
      .execute();
  }
}

/**
 * Up to `limit` of the connector's kept receipts, oldest first, after `after` (a page's last
 * one): a read, and none when nothing is kept (nearly always).
 */
export async function keptReceipts(
  db: Db,
  connector: string,
  after: { receivedAt: number; upstreamId: string } | null,
  limit: number,
): Promise<KeptReceipt[]> {
  let query = db
    .selectFrom("early_receipts")
    .selectAll()
    .where("connector", "=", connector)
    .orderBy("received_at")
    .orderBy("upstream_id")
    .limit(limit);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb("received_at", ">", after.receivedAt),
        eb.and([eb("received_at", "=", after.receivedAt), eb("upstream_id", ">", after.upstreamId)]),
      ]),
    );
  }
  const rows = await query.execute();
  return rows.map(keptReceiptOf);
}

/** A row of early_receipts as a receipt. */
function keptReceiptOf(row: EarlyReceiptsTable): KeptReceipt {
  return {
    upstreamId: row.upstream_id,
    status: row.status,
    stat: row.stat,
    err: row.err,
    doneAt: row.done_at === null ? null : Number(row.done_at),
    receivedAt: Number(row.received_at),
  };
}

/** Drops the connector's kept receipts older than `keptBefore`: no part came for them. Answers how many. */
export async function dropOldReceipts(db: Db, connector: string, keptBefore: number): Promise<number> {
  const result = await db
    .deleteFrom("early_receipts")
    .where("connector", "=", connector)
    .where("received_at", "<", keptBefore)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
