// Delivery reports that came before any message carried their id (`early_reports`, 0026): an
// aggregator that calls back before its answer to the send arrives. Kept in the transaction that
// found no message, applied by whichever process finds the message submitted (dispatch/reports.ts),
// and bounded three ways: per connector (the oldest dropped first), in age (48 hours), and in
// what they may apply to. A kept report applies only to a message that was due by the time the
// report came (latestDueOf): one that came before its message existed named an id the carrier
// gave another message before (aggregators reuse ids, some count from 1 again every day) or one
// guessed ahead, and would otherwise fail or deliver the next message given that id.
import { sql } from "kysely";
import { dropOldestPastMax, type RowBound } from "../../base/store/bounded-table.js";
import { type KeptReportForm, keptReportOfOldForm } from "../../base/store/kept-report-form.js";
import type { EarlyReportsTable } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import {
  carrierCodeOf,
  type DeliveryReport,
  type LaterReport,
  latestDueOf,
  REPORT_CLOCK_SKEW_MS,
  reasonOf,
  statusesByUpstreamId,
} from "./report-transitions.js";
import { chunks } from "./transitions.js";

/** A report's key: its connector and the carrier's id. */
export interface ReportKey {
  connector: string;
  upstreamId: string;
}

/**
 * Of `reports` (which changed nothing), those still ahead of their message: no message carries
 * the id yet (the report overtook the record of its submit), or the message is `submitted` after
 * all (on PostgreSQL its record committed between the report's UPDATE and this look, which sees
 * it: each statement reads what is committed when it starts). The others are done with: they
 * reached a message past `submitted` (a duplicate, or a report after a final state), or, kept,
 * found the id on a message that was due only after they came (`beforeDue`: not about it).
 */
export async function reportsAhead(
  trx: Db,
  reports: DeliveryReport[],
): Promise<{ ahead: DeliveryReport[]; beforeDue: DeliveryReport[] }> {
  const ahead: DeliveryReport[] = [];
  const beforeDue: DeliveryReport[] = [];
  for (const [connector, list] of byConnector(reports)) {
    /** Ids whose message is past `submitted`, and when the submitted ones were due. */
    const done = new Set<string>();
    const dueAt = new Map<string, number>();
    for (const part of chunks(list)) {
      const ids = part.map((r) => r.upstreamId);
      for (const row of await statusesByUpstreamId(trx, connector, ids)) {
        if (row.status !== "submitted") done.add(row.upstream_id!);
        else dueAt.set(row.upstream_id!, Math.min(Number(row.due_at), dueAt.get(row.upstream_id!) ?? Infinity));
      }
    }
    for (const report of list) {
      if (done.has(report.upstreamId)) continue;
      const due = dueAt.get(report.upstreamId);
      if (due !== undefined && due > latestDueOf(report)) beforeDue.push(report);
      else ahead.push(report);
    }
  }
  return { ahead, beforeDue };
}

/** Reports (or their keys) by connector. */
function byConnector<T extends ReportKey>(items: T[]): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const item of items) {
    const list = grouped.get(item.connector) ?? [];
    list.push(item);
    grouped.set(item.connector, list);
  }
  return grouped;
}

/**
 * Keeps reports that matched no message yet (in the transaction that found none, so before the
 * carrier hears they were taken), each as of its `keptSince`: the first report of an id is kept,
 * as the carrier gave it (unclassified: keptFormOf).
 * A connector keeps at most `max`: past it, its oldest are dropped. Answers how many this
 * transaction dropped (dropOldestPastMax: a report another process drops at the same time is its count).
 */
export async function keepEarlyReports(
  trx: Db,
  reports: DeliveryReport[],
  now: number,
  bound: RowBound,
): Promise<number> {
  let dropped = 0;
  for (const [connector, list] of byConnector(reports)) {
    for (const part of chunks(list)) {
      await trx
        .insertInto("early_reports")
        .values(
          part.map((r) => ({
            connector: r.connector,
            upstream_id: r.upstreamId,
            status: r.status,
            at: r.at,
            ...keptFormOf(r),
            received_at: r.keptSince ?? now,
          })),
        )
        .onConflict((oc) => oc.columns(["connector", "upstream_id"]).doNothing())
        .execute();
    }
    const oldest = await dropOldestPastMax(
      trx,
      { table: "early_reports", key: ["upstream_id"], scope: { connector } },
      bound,
    );
    dropped += oldest.length;
  }
  return dropped;
}

/** A report's key as one string. */
export function reportKeyOf(key: ReportKey): string {
  return `${key.connector}\u0000${key.upstreamId}`;
}

/**
 * The kept report of each id of `keys` that has one: the first report of that id the gateway
 * took, from whichever process (keepEarlyReports keeps no other), as of when it came.
 */
export async function keptReportsOf(trx: Db, keys: ReportKey[]): Promise<Map<string, DeliveryReport>> {
  const kept = new Map<string, DeliveryReport>();
  for (const [connector, list] of byConnector(keys)) {
    for (const part of chunks([...new Set(list.map((key) => key.upstreamId))])) {
      const rows = await trx
        .selectFrom("early_reports")
        .select(KEPT_COLUMNS)
        .where("connector", "=", connector)
        .where("upstream_id", "in", part)
        .execute();
      for (const row of rows) {
        const report = reportOfRow(row);
        kept.set(reportKeyOf(report), report);
      }
    }
  }
  return kept;
}

/** Whether `report` is the one kept as `kept` (the same status, time and code). */
function isKept(report: DeliveryReport, kept: DeliveryReport): boolean {
  return report.status === kept.status && report.at === kept.at && reasonOf(report).code === reasonOf(kept).code;
}

/**
 * Orders reports so that the first of an id the gateway took applies before any other of it,
 * whichever process took each: for an id with a kept report, that one goes `first` (the copy in
 * `reports` when they hold it; otherwise the table's, listed in `fromTable` too); for an id
 * without, its first in `reports`. Where the
 * first is a kept one, the others of its id go `later`, in the order they came, each applied only
 * to a message due after the first came (REPORT_CLOCK_SKEW_MS aside): one the first was not about
 * (the carrier gave its id to another message before). Where it is not, they would change nothing.
 */
export function firstReportsFirst(
  reports: DeliveryReport[],
  kept: ReadonlyMap<string, DeliveryReport>,
): { first: DeliveryReport[]; later: LaterReport[]; fromTable: DeliveryReport[] } {
  const chosen = new Map<string, DeliveryReport>();
  for (const report of reports) {
    const key = reportKeyOf(report);
    const keptOne = kept.get(key);
    if (keptOne ? isKept(report, keptOne) && !chosen.has(key) : !chosen.has(key)) chosen.set(key, report);
  }
  const fromTable: DeliveryReport[] = [];
  for (const [key, keptOne] of kept) {
    if (chosen.has(key)) continue;
    chosen.set(key, keptOne);
    fromTable.push(keptOne);
  }
  const first = new Set(chosen.values());
  const later: LaterReport[] = [];
  for (const report of reports) {
    const firstOne = chosen.get(reportKeyOf(report))!;
    if (first.has(report) || firstOne.keptSince === undefined) continue;
    later.push({ ...report, dueAfter: latestDueOf(firstOne) });
  }
  return { first: [...first], later, fromTable };
}

/** Forgets kept reports that have been applied. */
export async function forgetEarlyReports(trx: Db, keys: ReportKey[]): Promise<void> {
  for (const [connector, list] of byConnector(keys)) {
    for (const part of chunks(list)) {
      await trx
        .deleteFrom("early_reports")
        .where("connector", "=", connector)
        .where(
          "upstream_id",
          "in",
          part.map((key) => key.upstreamId),
        )
        .execute();
    }
  }
}

/** Up to `limit` kept reports whose message is now submitted, and was due by the time they came: due to be applied. */
export async function earlyReportsDue(db: Db, limit: number): Promise<DeliveryReport[]> {
  const rows = await db
    .selectFrom("early_reports as e")
    .innerJoin("messages as m", (join) =>
      join.onRef("m.upstream_id", "=", "e.upstream_id").onRef("m.connector", "=", "e.connector"),
    )
    .where("m.status", "=", sql.lit("submitted"))
    .where((eb) => eb("m.due_at", "<=", sql<number>`e.received_at + ${sql.lit(REPORT_CLOCK_SKEW_MS)}`))
    .select(KEPT_COLUMNS.map((column) => `e.${column}` as const))
    .limit(limit)
    .execute();
  return rows.map(reportOfRow);
}

/** A kept report's columns, as reportOfRow reads them. */
const KEPT_COLUMNS = [
  "connector",
  "upstream_id",
  "status",
  "at",
  "error_code",
  "carrier_code",
  "error_message",
  "received_at",
] as const;

/**
 * A report's failure as kept (0076, docs/decisions/0188): its code, the carrier's own code (the
 * one the error_codes tables map: an SMPP receipt's err, the code being its stat; else the code)
 * and the carrier's own message, unclassified, so that it is classified when it applies exactly
 * as the same report on time is. A delivered report keeps none.
 */
function keptFormOf(report: DeliveryReport): KeptReportForm {
  if (report.status !== "failed") return { error_code: null, carrier_code: null, error_message: null };
  return {
    error_code: report.code ?? null,
    carrier_code: carrierCodeOf(report) ?? null,
    error_message: report.message ?? null,
  };
}

/**
 * A kept row as the report it was, dated when it was kept. A failed row without carrier_code was
 * written by an older version (a process still running during a rolling upgrade: the migration
 * converted those kept before it), in the form it wrote: read as this one keeps it. (A report
 * with no code at all has none either, and reads the same so.)
 */
function reportOfRow(row: EarlyReportsTable): DeliveryReport {
  const form = row.status === "failed" && row.carrier_code === null ? keptReportOfOldForm(row) : row;
  return {
    connector: row.connector,
    upstreamId: row.upstream_id,
    status: row.status,
    at: Number(row.at),
    code: form.error_code,
    ...(form.carrier_code !== null ? { carrierCode: form.carrier_code } : {}),
    message: form.error_message,
    keptSince: Number(row.received_at),
  };
}

/**
 * Removes kept reports that will never apply: a message carrying their id is past `submitted`
 * (reported meanwhile, or expired) or was due only after they came, or they were kept since
 * before `keptBefore` and no message ever carried their id. Found by a read first, so that a look
 * that finds none writes nothing (on SQLite a write from a second thread waits for the file's
 * lock). Returns how many of the latter went.
 */
export async function dropSpentEarlyReports(db: Db, keptBefore: number): Promise<number> {
  const spent = await db
    .selectFrom("early_reports as e")
    .select(["e.connector", "e.upstream_id", "e.received_at"])
    .where(({ or, eb, exists, selectFrom }) =>
      or([
        eb("e.received_at", "<", keptBefore),
        exists(
          selectFrom("messages as m")
            .select("m.id")
            .whereRef("m.upstream_id", "=", "e.upstream_id")
            .whereRef("m.connector", "=", "e.connector")
            .where((inner) =>
              inner.or([
                inner("m.status", "<>", sql.lit("submitted")),
                inner("m.due_at", ">", sql<number>`e.received_at + ${sql.lit(REPORT_CLOCK_SKEW_MS)}`),
              ]),
            ),
        ),
      ]),
    )
    .limit(500)
    .execute();
  if (spent.length === 0) return 0;
  await forgetEarlyReports(
    db,
    spent.map((row) => ({ connector: row.connector, upstreamId: row.upstream_id })),
  );
  return spent.filter((row) => Number(row.received_at) < keptBefore).length;
}

/** Whether any report is kept: a read, so that a look when none is (nearly always) writes nothing. */
export async function hasEarlyReports(db: Db): Promise<boolean> {
  const row = await db.selectFrom("early_reports").select("connector").limit(1).executeTakeFirst();
  return row !== undefined;
}
