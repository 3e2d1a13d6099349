// SMPP receipts kept in `early_receipts` (migration 0055): a receipt that names no stored part
// after the connector's short looks (its part is another process's, whose write had not
// committed: with two workers bound to one SMSC account, the SMSC hands a part's receipt to
// either bind). It is kept in the transaction that found no part, before the SMSC hears it was
// taken; the connector still looks again from memory, and every connector of every process
// looks every few seconds for kept receipts of its connector, so one that the process which
// answered it never applied (killed, stopped) is applied once its part is stored. Bounded as
// early reports are: per connector (the oldest dropped first) and in age.
import type { Db } from "../../../base/store/store.js";
import type { Receipt } from "./receipt.js";
import type { ReceiptOutcome } from "./receipt-matching.js";

/** A receipt as kept, with when it came. */
export type KeptReceipt = Receipt & { status: "delivered" | "failed"; receivedAt: number };

/** Kept receipts per connector; past it the oldest are dropped. */
export const MAX_KEPT_PER_CONNECTOR = 10_000;
/** How long a kept receipt waits for its part: longer than an SMSC keeps a message. */
export const KEEP_RECEIPT_MS = 72 * 3600_000;

/**
 * Keeps receipts that named no stored part (in the caller's transaction); the first of an id is
 * kept. Answers how many of the connector's oldest were dropped to stay within `max`.
 */
export async function keepReceipts(
  trx: Db,
  connector: string,
  receipts: KeptReceipt[],
  max = MAX_KEPT_PER_CONNECTOR,
): Promise<number> {
  if (receipts.length === 0) return 0;
  const unique = new Map(receipts.map((receipt) => [receipt.upstreamId, receipt]));
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
  const { n } = await trx
    .selectFrom("early_receipts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("connector", "=", connector)
    .executeTakeFirstOrThrow();
  const excess = Number(n) - max;
  if (excess <= 0) return 0;
  const oldest = await trx
    .selectFrom("early_receipts")
    .select("upstream_id")
    .where("connector", "=", connector)
    .orderBy("received_at")
    .orderBy("upstream_id")
    .limit(excess)
    .execute();
  await forgetReceipts(
    trx,
    connector,
    oldest.map((row) => row.upstream_id),
  );
  return oldest.length;
}

/**
 * In the transaction that applied `receipts` (their `outcomes`): those kept that applied now, or
 * found their part final, are forgotten; those to keep (`keepAt`) that named no part are kept.
 * Answers how many of the connector's oldest were dropped.
 */
export async function settleKept(
  trx: Db,
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
  return keepReceipts(trx, connector, keep);
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
  return rows.map((row) => ({
    upstreamId: row.upstream_id,
    status: row.status,
    stat: row.stat,
    err: row.err,
    doneAt: row.done_at === null ? null : Number(row.done_at),
    receivedAt: Number(row.received_at),
  }));
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
