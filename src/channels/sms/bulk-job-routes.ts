// v2 bulk jobs: the account's jobs a page at a time, one job with where its pending messages
// are, and its cancel (what is not queued for a carrier yet, refunded). A job's delivery summary
// moves with its messages' states, so it is exact at every moment.

import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { fromMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { pageAnswer, resourceAnswer } from "../../base/http/answer-schemas.js";
import { PAGE_PARAMS, pageMeta, pageOf, pathId } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { BulkJobRow } from "../../base/store/schema.js";
import {
  bulkJobPendingStages,
  cancelScheduled,
  clickThrough,
  findBulkJob,
  listBulkJobs,
} from "../../domain/messages/index.js";
import { BulkJobCancellation, BulkJobDetail, BulkJobWithSummary } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

const JOBS_PER_PAGE = 25;
const JOBS_MAX_PER_PAGE = 100;

const resource = { envelope: "status" } as const;

function describeJob(job: BulkJobRow) {
  return {
    id: job.id,
    batch_id: job.batch_id,
    status: job.status,
    route: job.route,
    sender_id: job.sender,
    group_id: job.group_id,
    total: job.total,
    rejected: job.rejected,
    rejected_url: `/api/v2/refusals?job_id=${job.id}`,
    credits: fromMilli(job.credits),
    scheduled_at: job.scheduled_at === null ? null : isoUtc(new Date(job.scheduled_at)),
    created_at: isoUtc(new Date(job.created_at)),
    started_at: job.started_at === null ? null : isoUtc(new Date(job.started_at)),
    completed_at: job.completed_at === null ? null : isoUtc(new Date(job.completed_at)),
  };
}

/** total = delivered + failed + cancelled + pending, exact at every moment. */
function deliverySummary(job: BulkJobRow) {
  return {
    total: job.total,
    delivered: job.delivered,
    failed: job.failed,
    cancelled: job.cancelled,
    pending: job.total - job.delivered - job.failed - job.cancelled,
  };
}

export function registerBulkJobRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  /** The account's job with the id of the path, or not_found (an id that is no number included). */
  const ownJob = async (id: string, accountId: number): Promise<BulkJobRow> => {
    const numeric = pathId(id);
    const job = numeric === undefined ? undefined : await findBulkJob(db, accountId, numeric);
    if (!job) throw new GatewayError("not_found", `No bulk job "${id}" in this account.`);
    return job;
  };

  v2.get(
    "/bulk-jobs",
    {
      config: resource,
      schema: {
        operationId: "listBulkJobs",
        response: { 200: pageAnswer(BulkJobWithSummary) },
        summary: "Bulk jobs of the account, newest first, paginated",
        tags: ["account"],
        querystring: Type.Object({
          ...PAGE_PARAMS,
        }),
      },
    },
    async (request) => {
      const accountId = request.principal!.accountId;
      const paging = pageOf(request.query, JOBS_PER_PAGE, JOBS_MAX_PER_PAGE);
      const { rows, total } = await listBulkJobs(db, accountId, paging);
      return {
        status: "success",
        data: rows.map((job) => ({ ...describeJob(job), delivery_summary: deliverySummary(job) })),
        meta: pageMeta(paging, total),
      };
    },
  );

  v2.get(
    "/bulk-jobs/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "getBulkJob",
        response: {
          200: resourceAnswer(BulkJobDetail),
        },
        summary: "One bulk job with its delivery summary",
        tags: ["account"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
      },
    },
    async (request) => {
      const job = await ownJob(request.params.id, request.principal!.accountId);
      return {
        status: "success",
        data: {
          job: describeJob(job),
          delivery_summary: deliverySummary(job),
          pending_stages: await bulkJobPendingStages(db, job),
          clicks: await clickThrough(db, job.account_id, job.batch_id),
        },
      };
    },
  );

  v2.post(
    "/bulk-jobs/:id/cancel",
    {
      config: { ...resource, errors: [404, 409] },
      schema: {
        operationId: "cancelBulkJob",
        response: {
          200: resourceAnswer(BulkJobCancellation),
        },
        summary: "Cancel what a bulk job has not queued for a carrier yet, with refund",
        tags: ["account"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
      },
    },
    async (request) => {
      const accountId = request.principal!.accountId;
      const job = await ownJob(request.params.id, accountId);
      const cancelled = await ctx.store.transaction((trx) =>
        cancelScheduled(ctx.store, trx, ctx.clock, accountId, { broadcastId: job.batch_id }, { unexpanded: true }),
      );
      if (cancelled.count === 0) {
        throw new GatewayError(
          "conflict",
          `Nothing to cancel: every message of bulk job ${job.id} is already queued for a carrier or final.`,
        );
      }
      const after = (await findBulkJob(db, accountId, job.id)) ?? job;
      return {
        status: "success",
        data: {
          job: describeJob(after),
          delivery_summary: deliverySummary(after),
          cancelled: cancelled.count,
          credits_refunded: fromMilli(cancelled.credits),
        },
      };
    },
  );
}
