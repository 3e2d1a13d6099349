// v2 bulk sends and bulk jobs. One call sends one text to many recipients (a list, or a contact
// group) as one job: numbers that fail a rule are refused one by one in the answer, the others
// are charged and stored in one transaction. A large campaign can arrive in several calls that
// extend the same job (`job_id`). The job's delivery summary moves with its messages' states.

import { Type } from "@fastify/type-provider-typebox";
import { groupNumbers } from "../contacts/index.js";
import { isoUtc } from "../core/clock.js";
import { fromMilli } from "../core/credits.js";
import { GatewayError } from "../core/errors.js";
import { requiredInDocument } from "../http/openapi.js";
import { pageMeta, pageOf, pathId } from "../http/query-params.js";
import type { TypedRoutes } from "../http/typed-routes.js";
import { pageAnswer, resourceAnswer, smsAnswer } from "../http/v2-answers.js";
import {
  type AcceptedSend,
  type AcceptService,
  bulkJobPendingStages,
  cancelScheduled,
  findBulkJob,
  type JobRequest,
  listBulkJobs,
} from "../messages/index.js";
import type { Runtime } from "../runtime/runtime.js";
import type { BulkJobRow } from "../store/schema.js";
import type { SmsPolicy, SmsSendInput } from "./policy.js";
import { acceptIdempotent } from "./v2-accept.js";
import {
  BulkAccepted,
  BulkJob,
  DeliverySummary,
  REQUIRED_SEND_FIELDS,
  SEND_FIELDS,
  type SendFields,
} from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock"> & { acceptor: AcceptService; smsPolicy: SmsPolicy };

/** Recipients in one bulk call; a larger campaign is sent in several calls into one job. */
export const MAX_BULK_RECIPIENTS = 100_000;
/** Contacts of a group sent in one call (checked, charged and stored in one transaction). */
export const MAX_GROUP_RECIPIENTS = 1_000_000;
/** Refused recipients listed in an answer (the count is always exact). */
const MAX_LISTED_REJECTIONS = 1_000;
const JOBS_PER_PAGE = 25;
const JOBS_MAX_PER_PAGE = 100;

const sms = { envelope: "success" } as const;
const resource = { envelope: "status" } as const;

const BulkBody = requiredInDocument(
  Type.Object(
    {
      ...SEND_FIELDS,
      recipients: Type.Optional(
        Type.Array(Type.String({ maxLength: 20 }), {
          maxItems: MAX_BULK_RECIPIENTS,
          description: "The numbers to send to; or group_id instead.",
        }),
      ),
      group_id: Type.Optional(Type.Integer({ minimum: 1, description: "A contact group to send to; or recipients." })),
      job_id: Type.Optional(Type.Integer({ minimum: 1, description: "Extend this bulk job instead of starting one." })),
    },
    { additionalProperties: false, title: "BulkSendRequest" },
  ),
  REQUIRED_SEND_FIELDS,
);
type BulkBody = SendFields & { recipients?: string[]; group_id?: number; job_id?: number };

const PendingStages = Type.Object(
  { not_queued: Type.Integer(), scheduled: Type.Integer(), queued: Type.Integer(), submitted: Type.Integer() },
  { title: "BulkJobPendingStages" },
);

/** A job in the list: its fields and its delivery summary side by side. */
const BulkJobWithSummary = Type.Object(
  { ...BulkJob.properties, delivery_summary: DeliverySummary },
  { title: "BulkJobWithSummary" },
);

interface Rejection {
  recipient: string;
  error: { code: string; message: string; legacy_code?: number };
}

export function describeJob(job: BulkJobRow) {
  return {
    id: job.id,
    batch_id: job.batch_id,
    status: job.status,
    route: job.route,
    sender_id: job.sender,
    group_id: job.group_id,
    total: job.total,
    rejected: job.rejected,
    credits: fromMilli(job.credits),
    scheduled_at: job.scheduled_at === null ? null : isoUtc(new Date(job.scheduled_at)),
    created_at: isoUtc(new Date(job.created_at)),
    started_at: job.started_at === null ? null : isoUtc(new Date(job.started_at)),
    completed_at: job.completed_at === null ? null : isoUtc(new Date(job.completed_at)),
  };
}

/** total = delivered + failed + cancelled + pending, exact at every moment. */
export function deliverySummary(job: BulkJobRow) {
  return {
    total: job.total,
    delivered: job.delivered,
    failed: job.failed,
    cancelled: job.cancelled,
    pending: job.total - job.delivered - job.failed - job.cancelled,
  };
}

export function registerBulkRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;

  v2.post(
    "/sms/bulk",
    {
      config: { ...sms, errors: [402, 404, 409, 422] },
      schema: {
        operationId: "sendBulkSms",
        response: { 200: smsAnswer(BulkAccepted) },
        summary: `Send one text to many recipients (up to ${MAX_BULK_RECIPIENTS} per call, or a contact group) as a bulk job`,
        tags: ["sms"],
        body: BulkBody,
      },
    },
    async (request) => {
      const principal = request.principal!;
      const body = (request.body ?? {}) as BulkBody;
      if ((body.recipients === undefined) === (body.group_id === undefined)) {
        throw new GatewayError(
          "invalid_request",
          "Give either recipients (an array of numbers) or group_id, not both.",
          {
            field: "recipients",
          },
        );
      }
      return acceptIdempotent(ctx, request, principal, "sms/bulk", body, async () => {
        let append: BulkJobRow | undefined;
        if (body.job_id !== undefined) {
          append = await findBulkJob(db, principal.accountId, body.job_id);
          if (!append) throw new GatewayError("not_found", `No bulk job ${body.job_id} in this account.`);
          if (append.status === "completed") {
            throw new GatewayError("conflict", `Bulk job ${append.id} is completed; send the rest as a new job.`);
          }
        }
        let recipients = body.recipients ?? [];
        if (body.group_id !== undefined) {
          const numbers = await groupNumbers(db, principal.accountId, body.group_id, MAX_GROUP_RECIPIENTS + 1);
          if (!numbers) throw new GatewayError("not_found", `No contact group ${body.group_id} in this account.`);
          if (numbers.length === 0)
            throw new GatewayError("invalid_recipient", `Contact group ${body.group_id} is empty.`);
          recipients = numbers;
        }
        if (recipients.length === 0) throw new GatewayError("invalid_recipient", "recipients is empty.");
        const input: SmsSendInput = {
          senderId: body.sender_id,
          recipients,
          message: body.message,
          route: body.route,
          unicode: body.unicode,
          flash: body.flash,
          dltEntityId: body.dlt_entity_id,
          dltTemplateId: body.dlt_template_id,
          scheduleAt: body.schedule_at,
        };
        const { order, rejected } = await ctx.smsPolicy.decide(principal, input);
        const rejections: Rejection[] = rejected.map(({ recipient, error }) => ({
          recipient,
          error: {
            code: error.code,
            message: error.message,
            ...(error.legacyCode === undefined ? {} : { legacy_code: error.legacyCode }),
          },
        }));
        // A number given twice is sent once: the later copies are refused, not charged.
        const seen = new Set<string>();
        order.drafts = order.drafts.filter((draft) => {
          if (!seen.has(draft.recipient)) {
            seen.add(draft.recipient);
            return true;
          }
          rejections.push({
            recipient: draft.recipient,
            error: { code: "duplicate_recipient", message: `${draft.recipient} is already in this request.` },
          });
          return false;
        });
        const first = order.drafts[0]!;
        const job: JobRequest = append
          ? { kind: "append", id: append.id, batchId: append.batch_id, rejected: rejections.length }
          : {
              kind: "create",
              route: first.route,
              sender: first.sender,
              groupId: body.group_id ?? null,
              scheduledAt: order.status === "scheduled" ? first.dueAt : null,
              rejected: rejections.length,
            };
        order.job = job;
        return {
          order,
          answer: (send: AcceptedSend) => ({
            success: true,
            message: `Bulk job accepted: ${send.accepted} of ${recipients.length} recipients queued`,
            data: {
              job_id: send.jobId,
              batch_id: send.broadcastId,
              total: recipients.length,
              accepted: send.accepted,
              rejected: rejections.slice(0, MAX_LISTED_REJECTIONS),
              rejected_count: rejections.length,
              status: append ? append.status : "queued",
              credits: fromMilli(send.credits),
              ...(order.status === "scheduled" ? { scheduled_at: isoUtc(new Date(first.dueAt)) } : {}),
            },
          }),
        };
      });
    },
  );

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
          per_page: Type.Optional(Type.String({ maxLength: 20 })),
          page: Type.Optional(Type.String({ maxLength: 20 })),
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
          200: resourceAnswer(
            Type.Object(
              { job: BulkJob, delivery_summary: DeliverySummary, pending_stages: PendingStages },
              { title: "BulkJobDetail" },
            ),
          ),
        },
        summary: "One bulk job with its delivery summary",
        tags: ["account"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
      },
    },
    async (request) => {
      const { id } = request.params;
      const numeric = pathId(id);
      const job = numeric === undefined ? undefined : await findBulkJob(db, request.principal!.accountId, numeric);
      if (!job) throw new GatewayError("not_found", `No bulk job "${id}" in this account.`);
      return {
        status: "success",
        data: {
          job: describeJob(job),
          delivery_summary: deliverySummary(job),
          pending_stages: await bulkJobPendingStages(db, job),
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
          200: resourceAnswer(
            Type.Object(
              {
                job: BulkJob,
                delivery_summary: DeliverySummary,
                cancelled: Type.Integer(),
                credits_refunded: Type.Number(),
              },
              { title: "BulkJobCancellation" },
            ),
          ),
        },
        summary: "Cancel what a bulk job has not queued for a carrier yet, with refund",
        tags: ["account"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
      },
    },
    async (request) => {
      const { id } = request.params;
      const accountId = request.principal!.accountId;
      const numeric = pathId(id);
      const job = numeric === undefined ? undefined : await findBulkJob(db, accountId, numeric);
      if (!job) throw new GatewayError("not_found", `No bulk job "${id}" in this account.`);
      const cancelled = await ctx.store.transaction((trx) =>
        cancelScheduled(trx, ctx.clock, accountId, { broadcastId: job.batch_id }, { unexpanded: true }),
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
