// Delivery reports and their absence: carriers' reports move submitted messages to delivered or
// failed, a report that changed nothing is told duplicate from early, the messages still awaiting
// their report are found (the simulator's and the SMPP connector's lost ones), and those whose
// report never came are failed as expired. Like every transition (transitions.ts), each statement
// moves only rows in a legal source state.
import { type Expression, expressionBuilder, type SqlBool, sql } from "kysely";
import { assertTransition, sourcesOf } from "../core/message-status.js";
import type { Database, MessageStatus } from "../store/schema.js";
import type { Db, Store } from "../store/store.js";
import { countJobOutcomes } from "./jobs.js";
import { chunks } from "./transitions.js";

export interface DeliveryReport {
  connector: string;
  upstreamId: string;
  status: "delivered" | "failed";
  at: number;
  /** A failure's code (the carrier's, e.g. UNDELIV) and its description. */
  code?: string | null;
  message?: string | null;
}

export interface ReportedRow {
  id: string;
  account_id: number;
  channel: string;
  status: MessageStatus;
  created_at: number;
  job_id: number | null;
  recipient: string;
  done_at: number;
  /** Null on a delivered message. */
  error_code: string | null;
  error_message: string | null;
}

/** A failed report that names no reason still stores one, so every failed message says why. */
function reasonOf(report: DeliveryReport): { code: string | null; message: string | null } {
  if (report.status === "delivered") return { code: null, message: null };
  return {
    code: report.code ?? "failed",
    message: report.message ?? `The carrier reported the message failed${report.code ? ` (${report.code})` : ""}.`,
  };
}

const REPORTED_COLUMNS =
  "id, account_id, channel, status, created_at, job_id, recipient, done_at, error_code, error_message";
/** Both final states are reached from `submitted` only. */
const REPORT_SOURCES = sourcesOf("delivered")
  .map((status) => `'${status}'`)
  .join(", ");

/**
 * Applies carrier delivery reports; reports for unknown or already final messages change
 * nothing. SQLite: a prepared statement per report; PostgreSQL: one statement per batch with
 * the reports as arrays.
 */
export async function applyDeliveryReports(store: Store, trx: Db, reports: DeliveryReport[]): Promise<ReportedRow[]> {
  const unique = new Map<string, DeliveryReport>();
  for (const report of reports) unique.set(`${report.connector}\u0000${report.upstreamId}`, report);
  const changed: ReportedRow[] = [];
  // A delivered message keeps no error (a retried attempt's was cleared at its submit).
  if (store.engine === "sqlite") {
    const update = store.statement(
      `update messages set status = ?, done_at = ?, error_code = ?, error_message = ?
        where connector = ? and upstream_id = ? and status in (${REPORT_SOURCES})
       returning ${REPORTED_COLUMNS}`,
    );
    for (const r of unique.values()) {
      const reason = reasonOf(r);
      const rows = await update.all<ReportedRow>(trx, [
        r.status,
        r.at,
        reason.code,
        reason.message,
        r.connector,
        r.upstreamId,
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
      byConnector[report.connector]![report.upstreamId] = [report.status, report.at, reason.code, reason.message];
    }
    const rows = await store
      .statement(
        `update messages as m
            set status = v.reports #>> array[m.connector, m.upstream_id, '0'],
                done_at = (v.reports #>> array[m.connector, m.upstream_id, '1'])::bigint,
                error_code = v.reports #>> array[m.connector, m.upstream_id, '2'],
                error_message = v.reports #>> array[m.connector, m.upstream_id, '3']
           from (select ?::jsonb as reports) as v
          where m.upstream_id = any(?::text[]) and m.connector = any(?::text[])
            and v.reports #> array[m.connector, m.upstream_id] is not null
            and m.status in (${REPORT_SOURCES})
         returning ${REPORTED_COLUMNS.split(", ")
           .map((column) => `m.${column}`)
           .join(", ")}`,
      )
      .all<ReportedRow>(trx, [
        JSON.stringify(byConnector),
        [...unique.values()].map((r) => r.upstreamId),
        Object.keys(byConnector),
      ]);
    for (const row of rows) changed.push(row);
  }
  await countJobOutcomes(trx, changed, Math.max(...reports.map((r) => r.at), 0));
  return changed;
}

/**
 * The status of the messages of `connector` that carry one of `upstreamIds`: a report that
 * changed nothing is a duplicate or late when its message is past `submitted`.
 */
export async function statusesByUpstreamId(db: Db, connector: string, upstreamIds: string[]) {
  return db
    .selectFrom("messages")
    .select(["upstream_id", "status"])
    .where("connector", "=", connector)
    .where("upstream_id", "in", upstreamIds)
    .execute();
}

/**
 * Up to `limit` messages of `connector` submitted before `submittedBefore` and still awaiting
 * their report: the simulators' lost ones (SMS reports, voice calls walked again from their meta).
 */
export async function awaitingReport(db: Db, connector: string, submittedBefore: number, limit: number) {
  return db
    .selectFrom("messages")
    .select(["id", "recipient", "meta", "upstream_id"])
    .where("status", "=", sql.lit("submitted"))
    .where("connector", "=", connector)
    .where("submitted_at", "<", submittedBefore)
    .limit(limit)
    .execute();
}

/**
 * A page of `connector`'s messages submitted before `before` that still wait for their report,
 * in (submitted_at, id) order after `after`: the SMPP connector's start-up look for reports lost
 * in a crash, which reads each message's parts itself.
 */
export async function awaitingReportPage(
  db: Db,
  connector: string,
  before: number,
  after: { submittedAt: number; id: string } | null,
  limit: number,
): Promise<{ id: string; submitted_at: number | null }[]> {
  let query = db
    .selectFrom("messages")
    .select(["id", "submitted_at"])
    .where("status", "=", sql.lit("submitted"))
    .where("connector", "=", connector)
    .where("submitted_at", "<", before)
    .orderBy("submitted_at")
    .orderBy("id")
    .limit(limit);
  if (after) {
    const { submittedAt, id } = after;
    query = query.where((eb) =>
      eb.or([eb("submitted_at", ">", submittedAt), eb.and([eb("submitted_at", "=", submittedAt), eb("id", ">", id)])]),
    );
  }
  return query.execute();
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
  trx: Db,
  expiry: { connector: string; submittedBefore: number; now: number; message: string; limit: number },
): Promise<ReportedRow[]> {
  assertTransition("submitted", "failed");
  // The ids first, from the index; then the rows by primary key (a planner may otherwise walk
  // every submitted message to join them).
  const due = await trx
    .selectFrom("messages")
    .select("id")
    .where("status", "=", sql.lit("submitted"))
    .where("connector", "=", expiry.connector)
    .where("submitted_at", "<", expiry.submittedBefore)
    .orderBy("submitted_at")
    .limit(expiry.limit)
    .execute();
  if (due.length === 0) return [];
  const result = await sql<ReportedRow>`
    update messages
       set status = 'failed', error_code = 'expired', error_message = ${expiry.message}, done_at = ${expiry.now}
     where id in (${sql.join(due.map((row) => row.id))}) and status = 'submitted'
    returning id, account_id, channel, status, created_at, job_id, recipient, done_at,
              error_code, error_message`.execute(trx);
  await countJobOutcomes(trx, result.rows, expiry.now);
  return result.rows;
}

/** A report's key: its connector and the carrier's id. */
export interface ReportKey {
  connector: string;
  upstreamId: string;
}

/**
 * Of `reports` (which changed nothing), those still ahead of their message: no message carries
 * the id yet (the report overtook the record of its submit), or the message is `submitted` after
 * all (on PostgreSQL its record committed between the report's UPDATE and this look, which sees
 * it: each statement reads what is committed when it starts). The others reached a message past
 * `submitted` (a duplicate, or a report after a final state) and are done with.
 */
export async function reportsAhead(trx: Db, reports: DeliveryReport[]): Promise<DeliveryReport[]> {
  const ahead: DeliveryReport[] = [];
  for (const [connector, list] of byConnector(reports)) {
    /** Ids whose message is past `submitted`. */
    const known = new Set<string>();
    for (const part of chunks(list)) {
      const ids = part.map((r) => r.upstreamId);
      for (const row of await statusesByUpstreamId(trx, connector, ids)) {
        if (row.status !== "submitted") known.add(row.upstream_id!);
      }
    }
    for (const report of list) if (!known.has(report.upstreamId)) ahead.push(report);
  }
  return ahead;
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
 * Keeps reports that matched no message yet (`early_reports`, in the transaction that found
 * none, so before the carrier hears they were taken): the first report of an id is kept.
 */
export async function keepEarlyReports(trx: Db, reports: DeliveryReport[], now: number): Promise<void> {
  for (const part of chunks(reports)) {
    await trx
      .insertInto("early_reports")
      .values(
        part.map((r) => {
          const reason = reasonOf(r);
          return {
            connector: r.connector,
            upstream_id: r.upstreamId,
            status: r.status,
            at: r.at,
            error_code: reason.code,
            error_message: reason.message,
            received_at: now,
          };
        }),
      )
      .onConflict((oc) => oc.columns(["connector", "upstream_id"]).doNothing())
      .execute();
  }
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

/** Up to `limit` kept reports whose message is now submitted: due to be applied. */
export async function earlyReportsDue(db: Db, limit: number): Promise<DeliveryReport[]> {
  const rows = await db
    .selectFrom("early_reports as e")
    .innerJoin("messages as m", (join) =>
      join.onRef("m.upstream_id", "=", "e.upstream_id").onRef("m.connector", "=", "e.connector"),
    )
    .where("m.status", "=", sql.lit("submitted"))
    .select(["e.connector", "e.upstream_id", "e.status", "e.at", "e.error_code", "e.error_message"])
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    connector: row.connector,
    upstreamId: row.upstream_id,
    status: row.status,
    at: Number(row.at),
    code: row.error_code,
    message: row.error_message,
  }));
}

/**
 * Removes kept reports that will never apply: their message is past `submitted` (reported
 * meanwhile, or expired), or they were kept since before `keptBefore` and no message ever
 * carried their id. Found by a read first, so that a look that finds none writes nothing (on
 * SQLite a write from a second thread waits for the file's lock). Returns how many of the
 * latter went.
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
            .where("m.status", "<>", sql.lit("submitted")),
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
