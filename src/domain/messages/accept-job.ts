// The bulk job of a send, written in the Acceptor's transaction: the job row created or extended,
// and the part that holds the recipients until the expander makes them messages.
import { sql } from "kysely";
import type { NewBulkPart } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { encodeUpline } from "../accounts/index.js";
import type { AcceptedSend, JobRequest, SendOrder } from "./send-order.js";

/** What recordJob reads of an accepted send. */
export interface JobWrite {
  order: SendOrder;
  prepared: AcceptedSend;
  /** Messages in the send (rows, or recipients of the parts). */
  count: number;
  parts: NewBulkPart[] | undefined;
}

/** Creates the bulk job of an accepted send, or adds the send to the job it extends. */
export async function recordJob(trx: Db, pending: JobWrite, now: number): Promise<void> {
  const { order, prepared, count, parts } = pending;
  const job = order.job;
  if (!job || prepared.jobId === undefined) return;
  await recordJobRow(trx, order, prepared, job, count, now);
  if (parts && parts.length > 0) await trx.insertInto("bulk_parts").values(parts).execute();
}

async function recordJobRow(
  trx: Db,
  order: SendOrder,
  prepared: AcceptedSend,
  job: JobRequest,
  count: number,
  now: number,
): Promise<void> {
  if (job.kind === "create") {
    await trx
      .insertInto("bulk_jobs")
      .values({
        id: prepared.jobId,
        account_id: order.accountId,
        batch_id: prepared.broadcastId,
        status: "queued",
        route: job.route,
        sender: job.sender,
        group_id: job.groupId,
        total: count,
        rejected: job.rejected,
        delivered: 0,
        failed: 0,
        cancelled: 0,
        credits: prepared.credits,
        scheduled_at: job.scheduledAt,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return;
  }
  // A job that completed while this part was on its way opens again: its new messages are pending.
  await trx
    .updateTable("bulk_jobs")
    .set({
      total: sql`total + ${count}`,
      rejected: sql`rejected + ${job.rejected}`,
      credits: sql`credits + ${prepared.credits}`,
      status: sql`case when status = 'completed' then 'processing' else status end`,
      completed_at: null,
      updated_at: now,
    })
    .where("id", "=", job.id)
    .execute();
}

/**
 * The parts of a bulk job's send: one per price (a price card prices each recipient by its
 * prefix), each with what its messages share and their recipients in one column.
 */
export function bulkParts(
  order: SendOrder,
  broadcastId: string,
  jobId: number,
  status: string,
  now: number,
): NewBulkPart[] {
  // A sub-account's recipients share a part only when every level's price is the same too.
  const byPrice = new Map<number | string, SendOrder["drafts"]>();
  for (const draft of order.drafts) {
    const price = draft.upline ? `${draft.credits}|${draft.upline.join(",")}` : draft.credits;
    const list = byPrice.get(price) ?? [];
    list.push(draft);
    byPrice.set(price, list);
  }
  return [...byPrice.values()].map((drafts) => bulkPart(order, drafts, broadcastId, jobId, status, now));
}

function bulkPart(
  order: SendOrder,
  drafts: SendOrder["drafts"],
  broadcastId: string,
  jobId: number,
  status: string,
  now: number,
): NewBulkPart {
  const first = drafts[0]!;
  for (const draft of drafts) {
    if (
      draft.body !== first.body ||
      draft.sender !== first.sender ||
      draft.credits !== first.credits ||
      draft.dueAt !== first.dueAt ||
      draft.route !== first.route ||
      draft.templateId !== first.templateId ||
      draft.dltTmChain !== first.dltTmChain ||
      draft.dltScrub !== first.dltScrub
    ) {
      throw new Error("a bulk job's messages must share everything but the recipient");
    }
  }
  return {
    job_id: jobId,
    account_id: order.accountId,
    broadcast_id: broadcastId,
    status: "pending",
    recipients: drafts.map((d) => d.recipient).join(","),
    count: drafts.length,
    next_index: 0,
    channel: order.channel,
    sender: first.sender,
    body: first.body,
    encoding: first.encoding,
    segments: first.segments,
    flash: first.flash ? 1 : 0,
    route: first.route,
    lane: first.lane,
    wallet: order.wallet,
    credits: first.credits,
    upline: order.upline?.length ? encodeUpline(order.upline, first.upline ?? []) : null,
    dlt_entity_id: first.dltEntityId ?? null,
    dlt_template_id: first.dltTemplateId ?? null,
    template_id: first.templateId ?? null,
    dlt_tm_chain: first.dltTmChain ?? null,
    dlt_scrub: first.dltScrub ?? null,
    // Shortened per recipient by the expander, each message its own codes.
    short_links: first.shortLinks ? JSON.stringify(first.shortLinks) : null,
    // A scheduled part waits here until it is due; the expander then queues its messages.
    due_at: status === "scheduled" ? first.dueAt : Math.min(first.dueAt, now),
    created_at: now,
  };
}
