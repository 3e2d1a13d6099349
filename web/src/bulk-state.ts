// A bulk job's state in words, for its page and the jobs list: a job whose every message was
// cancelled reads "cancelled" (the API's status says only "completed"), and one waiting for its
// "Send at" reads "scheduled" with its time.
import { formatTime } from "./format.js";
import type { BulkJob, DeliverySummary } from "./types.js";

export function bulkJobState(job: BulkJob, summary: DeliverySummary, now = Date.now()): string {
  if (job.status === "completed" && summary.cancelled > 0 && summary.delivered + summary.failed === 0)
    return "cancelled";
  if (job.status !== "completed" && job.scheduled_at && Date.parse(job.scheduled_at) > now) return "scheduled";
  return job.status;
}

/** "scheduled for 01 Dec 2026, 18:30:00" while the job waits for its time; empty otherwise. */
export function scheduledWords(job: BulkJob, timeZone: string, now = Date.now()): string {
  if (!job.scheduled_at || job.status === "completed" || Date.parse(job.scheduled_at) <= now) return "";
  return `scheduled for ${formatTime(job.scheduled_at, timeZone)}`;
}
