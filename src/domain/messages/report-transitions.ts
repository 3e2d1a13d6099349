// Delivery reports and their absence: carriers' reports move submitted messages to delivered or
// failed, a report that changed nothing is told duplicate from early, the messages still awaiting
// their report are found (the simulator's and the SMPP connector's lost ones), and those whose
// report never came are failed as expired. Like every transition (transitions.ts), each statement
// moves only rows in a legal source state.
import { type Expression, expressionBuilder, type SqlBool, sql } from "kysely";
import { assertTransition, sourcesOf } from "../../base/core/message-status.js";
import type { Engine } from "../../base/store/engine.js";
import { jsonbText } from "../../base/store/jsonb.js";
import type { Database, MessageRow, MessageStatus } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { countJobOutcomes } from "./jobs.js";
import { ROLLUP_COLUMNS, RollupChanges } from "./rollups.js";

export interface DeliveryReport {
  connector: string;
  upstreamId: string;
  status: "delivered" | "failed";
  at: number;
  /** A failure's code (the carrier's, e.g. UNDELIV) and its description. */
  code?: string | null;
  message?: string | null;
  /** The carrier's own failure code when `code` is not it (an SMPP receipt's err; code is its stat). */
  carrierCode?: string | null;
  /** The reason of the error catalogue the carrier's code maps to (set by the ingester), and the code mapped. */
  reason?: { reason: string; carrierCode: string } | null;
  /**
   * Set on a report kept because no message carried its id yet (early-reports.ts): when it came.
   * It then applies only to a message that was due by that time (REPORT_CLOCK_SKEW_MS aside).
   */
  keptSince?: number;
}

/** The longest carrier message id a report may name (as the status call bounds ids); longer ones are refused where they come in. */
export const UPSTREAM_ID_MAX_LENGTH = 100;
/** The longest status or failure code a carrier's report may carry. */
export const REPORT_CODE_MAX_LENGTH = 100;

/**
 * A kept report applies to a message that was due at most this long after the report came: the
 * clock of the process that took the report and of the one that queued the message may differ
 * by that much. A report that came before its message was even due is not about it: it named an
 * id the carrier gave another message before (aggregators reuse ids), or one guessed ahead.
 */
export const REPORT_CLOCK_SKEW_MS = 5_000;

/** The latest due_at of a message `report` may apply to. */
export function latestDueOf(report: DeliveryReport): number {
  return report.keptSince === undefined ? Number.MAX_SAFE_INTEGER : report.keptSince + REPORT_CLOCK_SKEW_MS;
}

export interface ReportedRow {
  id: string;
  account_id: number;
  channel: string;
  status: MessageStatus;
  created_at: number;
  broadcast_id: string;
  job_id: number | null;
  recipient: string;
  done_at: number;
  /** Null on a delivered message. */
  error_code: string | null;
  error_message: string | null;
  error_reason: string | null;
  carrier_code: string | null;
  route: string;
  connector: string | null;
  delivered_at: number | null;
  submitted_at: number | null;
}

/** A failed report that names no reason still stores one, so every failed message says why. */
export function reasonOf(report: DeliveryReport): {
  code: string | null;
  message: string | null;
  reason: string | null;
  carrierCode: string | null;
} {
  if (report.status === "delivered") return { code: null, message: null, reason: null, carrierCode: null };
  return {
    code: report.code ?? "failed",
    message: report.message ?? `The carrier reported the message failed${report.code ? ` (${report.code})` : ""}.`,
    reason: report.reason?.reason ?? null,
    carrierCode: report.reason?.carrierCode ?? null,
  };
}

/** The code a report's carrier gave, which its connector's error_codes table maps. */
export function carrierCodeOf(report: DeliveryReport): string | undefined {
  if (report.status !== "failed") return undefined;
  return report.carrierCode ?? report.code ?? undefined;
}

const REPORTED_COLUMNS = [
  "id",
  "broadcast_id",
  "job_id",
  "error_message",
  "error_reason",
  "carrier_code",
  ...ROLLUP_COLUMNS,
].join(", ");
/** Both final states are reached from `submitted` only. */
const REPORT_SOURCES = sourcesOf("delivered")
  .map((status) => `'${status}'`)
  .join(", ");

/**
 * Applies carrier delivery reports; reports for unknown or already final messages change
 * nothing, and a kept report changes no message that was due after it came (latestDueOf). Of
 * several reports of one id the first applies; a `later` one (early-reports.ts firstReportsFirst)
 * changes only a message due after `dueAfter`: one the first of its id could never apply to (it
 * came before that message was due). On PostgreSQL a submit may commit between the two passes:
 * the bound, not the order, keeps a later report from the message its first report was about.
 * SQLite: a prepared statement per report; PostgreSQL: one statement per batch with the reports
 * as arrays.
 */
export async function applyDeliveryReports(
  store: Store,
  trx: Db,
  reports: DeliveryReport[],
  later: LaterReport[] = [],
): Promise<ReportedRow[]> {
  const changed = await updateReported(store, trx, reports);
  if (later.length > 0) changed.push(...(await updateReported(store, trx, later, true)));
  const all = [...reports, ...later];
  await countJobOutcomes(trx, changed, Math.max(...all.map((r) => r.at), 0));
  await countReported(store, trx, changed);
  return changed;
}

/** A report that came after the first of its id: applied only to a message due after `dueAfter`. */
export type LaterReport = DeliveryReport & { dueAfter: number };

/** One pass of applyDeliveryReports: of several reports of one id, the first (as it came) applies. */
async function updateReported(
  store: Store,
  trx: Db,
  reports: (DeliveryReport & { dueAfter?: number })[],
  bounded = false,
): Promise<ReportedRow[]> {
  const unique = new Map<string, DeliveryReport & { dueAfter?: number }>();
  for (const report of reports) {
    const key = `${report.connector}\u0000${report.upstreamId}`;
    if (!unique.has(key)) unique.set(key, report);
  }
  const changed: ReportedRow[] = [];
  // A delivered message keeps no error (a retried attempt's was cleared at its submit).
  if (store.engine === "sqlite") {
    const update = store.statement(
      `update messages set status = ?, done_at = ?, error_code = ?, error_message = ?, error_reason = ?, carrier_code = ?
        where connector = ? and upstream_id = ? and status in (${REPORT_SOURCES}) and due_at <= ?${bounded ? " and due_at > ?" : ""}
       returning ${REPORTED_COLUMNS}`,
    );
    for (const r of unique.values()) {
      const reason = reasonOf(r);
      const rows = await update.all<ReportedRow>(trx, [
        r.status,
        r.at,
        reason.code,
        reason.message,
        reason.reason,
        reason.carrierCode,
        r.connector,
        r.upstreamId,
        latestDueOf(r),
        ...(bounded ? [r.dueAfter ?? Number.MAX_SAFE_INTEGER] : []),
      ]);
      for (const row of rows) changed.push(row);
    }
  } else {
    // No join (as markSubmitted): the messages are found through messages_by_upstream
    // (`upstream_id = any(…)`) and read their report from one jsonb object, by connector and
    // upstream id. Joined with unnest(…) of the reports, the planner chose a merge join on the
    // connector (one value) that compared every report with every submitted message.
    const byConnector: Record<string, Record<string, unknown[]>> = {};
    for (const report of unique.values()) {
      const reason = reasonOf(report);
      byConnector[report.connector] ??= {};
      byConnector[report.connector]![report.upstreamId] = [
        report.status,
        report.at,
        reason.code,
        reason.message,
        latestDueOf(report),
        reason.reason,
        reason.carrierCode,
        report.dueAfter ?? Number.MAX_SAFE_INTEGER,
      ];
    }
    const rows = await store
      .statement(
        `update messages as m
            set status = v.reports #>> array[m.connector, m.upstream_id, '0'],
                done_at = (v.reports #>> array[m.connector, m.upstream_id, '1'])::bigint,
                error_code = v.reports #>> array[m.connector, m.upstream_id, '2'],
                error_message = v.reports #>> array[m.connector, m.upstream_id, '3'],
                error_reason = v.reports #>> array[m.connector, m.upstream_id, '5'],
                carrier_code = v.reports #>> array[m.connector, m.upstream_id, '6']
           from (select ?::jsonb as reports) as v
          where m.upstream_id = any(?::text[]) and m.connector = any(?::text[])
            and v.reports #> array[m.connector, m.upstream_id] is not null
            and m.status in (${REPORT_SOURCES})
            and m.due_at <= (v.reports #>> array[m.connector, m.upstream_id, '4'])::bigint${
              bounded
                ? `
            and m.due_at > (v.reports #>> array[m.connector, m.upstream_id, '7'])::bigint`
                : ""
            }
         returning ${REPORTED_COLUMNS.split(", ")
           .map((column) => `m.${column}`)
           .join(", ")}`,
      )
      .all<ReportedRow>(trx, [
        jsonbText(byConnector),
        [...unique.values()].map((r) => r.upstreamId),
        Object.keys(byConnector),
      ]);
    for (const row of rows) changed.push(row);
  }
  return changed;
}

/**
 * Reported messages in the rollups: from submitted (pending, the same connector) to what they are
 * now. Written last in the transaction, as every writer does: the rows for every account at once
 * are shared by all writers, and PostgreSQL holds their locks only from this write to the commit.
 */
async function countReported(store: Store, trx: Db, rows: ReportedRow[]): Promise<void> {
  const rollups = new RollupChanges();
  for (const row of rows) rollups.move({ ...row, status: "submitted" }, row);
  await rollups.write(store, trx);
}

/**
 * The status (and when it was due) of the messages of `connector` that carry one of
 * `upstreamIds`: a report that changed nothing is a duplicate or late when its message is past
 * `submitted`.
 */
export async function statusesByUpstreamId(db: Db, connector: string, upstreamIds: string[]) {
  return db
    .selectFrom("messages")
    .select(["upstream_id", "status", "due_at"])
    .where("connector", "=", connector)
    .where("upstream_id", "in", upstreamIds)
    .execute();
}

/** Which of a connector's messages awaiting their report a read takes (awaitingReportQuery). */
export interface AwaitingReportRead {
  connector: string;
  /** Submitted before this time (ms). */
  before: number;
  /** After this one in (submitted_at, id) order; null: from the first. */
  after?: { submittedAt: number; id: string } | null;
  /** In (submitted_at, id) order; otherwise in any. */
  ordered?: boolean;
  limit: number;
}

/**
 * The read of `connector`'s messages submitted before `before` and still awaiting their report,
 * through the partial index of submitted messages (status = 'submitted': a few seconds' worth).
 * SQLite's planner, without statistics, takes messages_by_connector_submit instead, which has the
 * same columns and an entry for every message ever submitted, and walks every message the
 * connector sent before `before`: a read that grew with the table (28 ms at 38,000 messages,
 * against 0.03 ms; docs/decisions/0137). So on SQLite the index is named; PostgreSQL's statistics
 * find it.
 */
export function awaitingReportQuery<Row>(
  engine: Engine,
  columns: readonly (keyof MessageRow)[],
  read: AwaitingReportRead,
) {
  const { after, ordered } = read;
  return sql<Row>`
    select ${sql.join(columns.map((column) => sql.ref(column)))}
      from messages${sql.raw(engine === "sqlite" ? " indexed by messages_submitted" : "")}
     where status = 'submitted' and connector = ${read.connector} and submitted_at < ${read.before}
     ${after ? sql`and (submitted_at > ${after.submittedAt} or (submitted_at = ${after.submittedAt} and id > ${after.id}))` : sql``}
     ${ordered ? sql`order by submitted_at, id` : sql``}
     limit ${read.limit}`;
}

/**
 * Up to `limit` messages of `connector` submitted before `submittedBefore` and still awaiting
 * their report: the simulators' lost ones (SMS reports, voice calls walked again from their meta).
 */
export async function awaitingReport(
  store: Pick<Store, "db" | "engine">,
  connector: string,
  submittedBefore: number,
  limit: number,
) {
  const columns = ["id", "recipient", "meta", "upstream_id"] as const;
  const query = awaitingReportQuery<Pick<MessageRow, (typeof columns)[number]>>(store.engine, columns, {
    connector,
    before: submittedBefore,
    limit,
  });
  return (await query.execute(store.db)).rows;
}

/**
 * A page of `connector`'s messages submitted before `before` that still wait for their report,
 * in (submitted_at, id) order after `after`: the SMPP connector's start-up look for reports lost
 * in a crash, which reads each message's parts itself.
 */
export async function awaitingReportPage(
  store: Pick<Store, "db" | "engine">,
  connector: string,
  before: number,
  after: { submittedAt: number; id: string } | null,
  limit: number,
): Promise<{ id: string; submitted_at: number | null }[]> {
  const query = awaitingReportQuery<{ id: string; submitted_at: number | null }>(store.engine, ["id", "submitted_at"], {
    connector,
    before,
    after,
    ordered: true,
    limit,
  });
  return (await query.execute(store.db)).rows;
}

/**
 * True where the message `messageId` names still waits for its delivery report (`submitted`): a
 * condition for another folder's statement over rows that name messages (the SMPP parts kept
 * until their message is reported).
 */
export function messageAwaitsReport(messageId: Expression<string>): Expression<SqlBool> {
  const eb = expressionBuilder<Database>();
  return eb.exists(
    eb
      .selectFrom("messages")
      .select("messages.id")
      .where("messages.id", "=", messageId)
      .where("messages.status", "=", "submitted"),
  );
}

/**
 * The connectors with a message submitted before `submittedBefore` that still waits for its
 * delivery report: a skip scan of the partial index of submitted messages (connector,
 * submitted_at), two probes per connector, so a look when nothing is due costs no write.
 */
export async function connectorsAwaitingReports(db: Db, submittedBefore: number): Promise<string[]> {
  const result = await sql<{ name: string | null }>`
    with recursive c(name) as (
      select min(connector) from messages where status = 'submitted'
      union all
      select (select min(connector) from messages where status = 'submitted' and connector > c.name)
        from c where c.name is not null
    )
    select name from (
      select name,
             -- A correlated probe per connector: as a semi-join, PostgreSQL walks the whole index.
             (select 1 from messages
               where status = 'submitted' and connector = c.name and submitted_at < ${submittedBefore}
               limit 1) as due
        from c where name is not null
    ) d
     where due is not null`.execute(db);
  return result.rows.map((row) => row.name!);
}

/**
 * Fails up to `limit` messages of `connector` that were submitted before `submittedBefore` and
 * never got their delivery report: error code `expired`. Not refunded, like any failure after
 * the carrier took a message; a report that comes later finds the message final and changes
 * nothing.
 */
export async function expireUnreported(
  store: Store,
  trx: Db,
  expiry: { connector: string; submittedBefore: number; now: number; message: string; limit: number },
): Promise<ReportedRow[]> {
  assertTransition("submitted", "failed");
  // The ids first, from the index; then the rows by primary key (a planner may otherwise walk
  // every submitted message to join them).
  const due = (
    await awaitingReportQuery<{ id: string }>(store.engine, ["id"], {
      connector: expiry.connector,
      before: expiry.submittedBefore,
      ordered: true,
      limit: expiry.limit,
    }).execute(trx)
  ).rows;
  if (due.length === 0) return [];
  const result = await sql<ReportedRow>`
    update messages
       set status = 'failed', error_code = 'expired', error_message = ${expiry.message}, done_at = ${expiry.now}
     where id in (${sql.join(due.map((row) => row.id))}) and status = 'submitted'
    returning ${sql.raw(REPORTED_COLUMNS)}`.execute(trx);
  await countJobOutcomes(trx, result.rows, expiry.now);
  await countReported(store, trx, result.rows);
  return result.rows;
}
