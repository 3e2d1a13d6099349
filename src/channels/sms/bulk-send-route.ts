// v2 bulk sends (POST /api/v2/sms/bulk). One call sends one text to many recipients (a list, or a
// contact group) as one job: numbers that fail a rule are refused one by one in the answer, the
// others are charged and stored in one transaction. A large campaign can arrive in several calls
// that extend the same job (`job_id`); the job's routes are in bulk-job-routes.ts.
// POST /api/v2/sms/bulk/preview checks the same body the same way and answers what the call would
// send and charge, sending and charging nothing.

import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { fromMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { requiredInDocument, smsAnswer } from "../../base/http/answer-schemas.js";
import { RowId } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { BulkJobRow } from "../../base/store/schema.js";
import { walletBalance } from "../../domain/accounts/index.js";
import type { Principal } from "../../domain/auth/index.js";
import { groupNumbers } from "../../domain/contacts/index.js";
import { type AcceptedSend, type AcceptService, findBulkJob, type JobRequest } from "../../domain/messages/index.js";
import type { SmsPolicy, SmsSendInput } from "./policy.js";
import { MAX_RECIPIENTS_PER_REQUEST, noRecipient, withoutRepeats } from "./recipients.js";
import { REQUIRED_SEND_FIELDS, SEND_FIELDS, type SendFields } from "./send-fields.js";
import { acceptIdempotent, namingField } from "./v2-accept.js";
import { BulkAccepted, BulkPreview } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock"> & { acceptor: AcceptService; smsPolicy: SmsPolicy };

/** Contacts of a group sent in one call (checked, charged and stored in one transaction). */
const MAX_GROUP_RECIPIENTS = 1_000_000;
/** Refused recipients listed in an answer (the count is always exact). */
const MAX_LISTED_REJECTIONS = 1_000;

const sms = { envelope: "success" } as const;

const BulkBody = requiredInDocument(
  Type.Object(
    {
      ...SEND_FIELDS,
      recipients: Type.Optional(
        Type.Array(Type.String({ maxLength: 20 }), {
          maxItems: MAX_RECIPIENTS_PER_REQUEST,
          description: "The numbers to send to; or group_id instead.",
        }),
      ),
      group_id: Type.Optional(RowId({ description: "A contact group to send to; or recipients." })),
      job_id: Type.Optional(RowId({ description: "Extend this bulk job instead of starting one." })),
    },
    { additionalProperties: false, title: "BulkSendRequest" },
  ),
  REQUIRED_SEND_FIELDS,
);
type BulkBody = SendFields & { recipients?: string[]; group_id?: number; job_id?: number };

interface Rejection {
  recipient: string;
  error: { code: string; message: string; legacy_code?: number };
}

/** What the bulk answer needs beside the accepted send (stored with it for an idempotent retry). */
interface BulkAnswerContext {
  total: number;
  rejected: Rejection[];
  rejectedCount: number;
  status: string;
  scheduledAt: string | null;
}

function bulkAnswer(send: AcceptedSend, context: BulkAnswerContext) {
  return {
    success: true,
    message: `Bulk job accepted: ${send.accepted} of ${context.total} recipients queued`,
    data: {
      job_id: send.jobId,
      batch_id: send.broadcastId,
      total: context.total,
      accepted: send.accepted,
      rejected: context.rejected,
      rejected_count: context.rejectedCount,
      status: context.status,
      credits: fromMilli(send.credits),
      ...(context.scheduledAt === null ? {} : { scheduled_at: context.scheduledAt }),
    },
  };
}

export function registerBulkSendRoute(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;

  /** The recipients of a bulk call, each checked as a send would be: the order and what it refuses. */
  async function checkBulk(principal: Principal, body: BulkBody) {
    if ((body.recipients === undefined) === (body.group_id === undefined)) {
      const which = body.recipients === undefined ? ": the request has neither" : ", not both";
      throw new GatewayError("invalid_request", `Give recipients (an array of numbers) or group_id${which}.`, {
        field: "recipients",
      });
    }
    let recipients = body.recipients ?? [];
    if (body.group_id !== undefined) {
      const numbers = await groupNumbers(db, principal.accountId, body.group_id, MAX_GROUP_RECIPIENTS + 1);
      if (!numbers) throw new GatewayError("not_found", `No contact group ${body.group_id} in this account.`);
      if (numbers.length === 0) {
        throw new GatewayError("invalid_recipient", `Contact group ${body.group_id} is empty.`, { field: "group_id" });
      }
      recipients = numbers;
    }
    // None, or only blank ones: the policy's missing number would name the send's `recipient`.
    if (recipients.every((recipient) => recipient.trim() === "")) throw noRecipient("recipients");
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
      shortenUrls: body.shorten_urls ?? "account",
    };
    // The numbers are refused whole only when each is (one by one in the answer otherwise), so the
    // refusal is the first number's: recipients[0], or the group's.
    const recipient = body.group_id === undefined ? "recipients[0]" : "group_id";
    const { order, rejected } = await ctx.smsPolicy
      .decide(principal, input)
      .catch((error: unknown) => Promise.reject(namingField(error, { recipient, schedule: "schedule_at" })));
    const { kept, repeats } = withoutRepeats(order.drafts);
    order.drafts = kept;
    const rejections: Rejection[] = [...rejected, ...repeats].map(({ recipient, error }) => ({
      recipient,
      error: {
        code: error.code,
        message: error.message,
        ...(error.legacyCode === undefined ? {} : { legacy_code: error.legacyCode }),
      },
    }));
    return { order, rejections, recipients };
  }

  v2.post(
    "/sms/bulk",
    {
      config: { ...sms, errors: [402, 404, 409, 422] },
      schema: {
        operationId: "sendBulkSms",
        response: { 200: smsAnswer(BulkAccepted) },
        summary: `Send one text to many recipients (up to ${MAX_RECIPIENTS_PER_REQUEST} per call, or a contact group) as a bulk job`,
        tags: ["sms"],
        body: BulkBody,
      },
    },
    async (request) => {
      const principal = request.principal!;
      const body = (request.body ?? {}) as BulkBody;
      /** Every recipient left out (the answer lists the first 1,000): to the log of refusals once accepted. */
      let leftOut: Rejection[] = [];
      return acceptIdempotent(
        ctx,
        request,
        principal,
        "sms/bulk",
        body,
        async () => {
          let append: BulkJobRow | undefined;
          if (body.job_id !== undefined) {
            append = await findBulkJob(db, principal.accountId, body.job_id);
            if (!append) throw new GatewayError("not_found", `No bulk job ${body.job_id} in this account.`);
            if (append.status === "completed") {
              throw new GatewayError("conflict", `Bulk job ${append.id} is completed; send the rest as a new job.`);
            }
          }
          const { order, rejections, recipients } = await checkBulk(principal, body);
          leftOut = rejections;
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
          const context: BulkAnswerContext = {
            total: recipients.length,
            rejected: rejections.slice(0, MAX_LISTED_REJECTIONS),
            rejectedCount: rejections.length,
            status: append ? append.status : "queued",
            scheduledAt: order.status === "scheduled" ? isoUtc(new Date(first.dueAt)) : null,
          };
          return { order, context };
        },
        bulkAnswer,
        (send) => {
          if (leftOut.length === 0) return;
          request.leftOut = {
            broadcastId: send.broadcastId,
            jobId: send.jobId,
            recipients: leftOut.map(({ recipient, error }) => ({ recipient, code: error.code, reason: error.message })),
          };
        },
      );
    },
  );

  // What a bulk call would do, before it is made: the console's confirmation shows it.
  v2.post(
    "/sms/bulk/preview",
    {
      config: { ...sms, errors: [404, 422] },
      schema: {
        operationId: "previewBulkSms",
        response: { 200: smsAnswer(BulkPreview) },
        summary: "What a bulk send would send and charge, checked as it would be; nothing is sent or charged",
        tags: ["sms"],
        body: BulkBody,
      },
    },
    async (request) => {
      const principal = request.principal!;
      const { order, rejections, recipients } = await checkBulk(principal, (request.body ?? {}) as BulkBody);
      const segments = order.drafts.reduce((sum, draft) => sum + draft.segments, 0);
      const credits = order.drafts.reduce((sum, draft) => sum + draft.credits, 0);
      return {
        success: true,
        message: `${order.drafts.length} of ${recipients.length} recipients would be sent to`,
        data: {
          total: recipients.length,
          accepted: order.drafts.length,
          rejected: rejections.slice(0, MAX_LISTED_REJECTIONS),
          rejected_count: rejections.length,
          segments_per_message: order.drafts[0]?.segments ?? 0,
          segments,
          credits: fromMilli(credits),
          wallet: order.wallet,
          balance: fromMilli(await walletBalance(db, principal.accountId, order.wallet)),
        },
      };
    },
  );
}
