// Bulk-job bookkeeping. A job's counters move in the same transaction as the message states
// they count, so its delivery summary is exact at every moment: total = delivered + failed +
// cancelled + pending. A job is `queued` until its first message reaches a carrier,
// `processing` while any message is not final, and `completed` when none is left pending.
// The bulk-job routes read an account's jobs and their pending messages here.
import { sql } from "kysely";
import { pagedRows } from "../../base/store/paging.js";
import type { BulkJobRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";

/** A final message of a job, as returned by the statements that finalise messages. */
export interface JobOutcome {
  job_id: number | null;
  status: string;
  /** How many messages this stands for (a cancelled bulk part: all its remaining recipients). */
  count?: number;
}

/** Jobs whose messages were just submitted to a carrier move from queued to processing. */
export async function markJobsStarted(trx: Db, jobIds: Iterable<number | null>, now: number): Promise<void> {
  const ids = [...new Set([...jobIds].filter((id): id is number => id !== null))];
  if (ids.length === 0) return;
  await trx
    .updateTable("bulk_jobs")
    .set({ status: "processing", started_at: now, updated_at: now })
    .where("id", "in", ids)
    .where("status", "=", "queued")
    .execute();
}

/** Adds messages that reached delivered, failed or cancelled to their jobs' counters. */
export async function countJobOutcomes(trx: Db, rows: readonly JobOutcome[], now: number): Promise<void> {
  const byJob = new Map<number, { delivered: number; failed: number; cancelled: number }>();
  for (const row of rows) {
    if (row.job_id === null) continue;
    const counts = byJob.get(row.job_id) ?? { delivered: 0, failed: 0, cancelled: 0 };
    const n = row.count ?? 1;
    if (row.status === "delivered") counts.delivered += n;
    else if (row.status === "cancelled") counts.cancelled += n;
    else counts.failed += n;
    byJob.set(row.job_id, counts);
  }
  for (const [id, c] of byJob) {
    const done = sql<number>`delivered + failed + cancelled + ${c.delivered + c.failed + c.cancelled}`;
    await trx
      .updateTable("bulk_jobs")
      .set({
        delivered: sql`delivered + ${c.delivered}`,
        failed: sql`failed + ${c.failed}`,
        cancelled: sql`cancelled + ${c.cancelled}`,
        status: sql`case when ${done} >= total then 'completed' else status end`,
        completed_at: sql`case when ${done} >= total then ${now} else completed_at end`,
        // Started only by a message that reached a carrier (markJobsStarted, or a delivery); a job
        // whose messages were all cancelled, or failed before one, completes without starting.
        ...(c.delivered > 0 ? { started_at: sql`coalesce(started_at, ${now})` } : {}),
        updated_at: now,
      })
      .where("id", "=", id)
      .execute();
  }
}

/** An account's bulk job; undefined when the id names none of its jobs. */
export async function findBulkJob(db: Db, accountId: number, id: number): Promise<BulkJobRow | undefined> {
  return db
    .selectFrom("bulk_jobs")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** A page of the account's bulk jobs, newest first, and how many it has in all. */
export async function listBulkJobs(
  db: Db,
  accountId: number,
  paging: { page: number; perPage: number },
): Promise<{ rows: BulkJobRow[]; total: number }> {
  const query = db.selectFrom("bulk_jobs").where("account_id", "=", accountId);
  return pagedRows(query, (q) => q.selectAll().orderBy("id", "desc"), paging);
}

/**
 * Where a running job's pending messages are: recipients the expander has not made messages yet,
 * then scheduled, queued (dispatching included) and submitted messages. Read from the job's
 * messages (its broadcast id's index), so only while the job runs; all 0 once it completed.
 */
export async function bulkJobPendingStages(db: Db, job: BulkJobRow) {
  const stages = { not_queued: 0, scheduled: 0, queued: 0, submitted: 0 };
  if (job.status === "completed") return stages;
  const [parts, messages] = await Promise.all([
    db
      .selectFrom("bulk_parts")
      .select(sql<number>`coalesce(sum(count - next_index), 0)`.as("n"))
      .where("broadcast_id", "=", job.batch_id)
      .where("status", "=", "pending")
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("messages")
      .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
      .where("broadcast_id", "=", job.batch_id)
      .where("status", "in", ["scheduled", "queued", "dispatching", "submitted"])
      .groupBy("status")
      .execute(),
  ]);
  stages.not_queued = Number(parts.n);
  for (const row of messages) {
    const stage = row.status === "dispatching" ? "queued" : (row.status as "scheduled" | "queued" | "submitted");
    stages[stage] += Number(row.n);
  }
  return stages;
}
