// v2 SMS: send, status, balance and sender IDs. The adapter only parses and formats; the
// rules are in policy.ts and acceptance in messages/accept.ts.

import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { fromMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { requiredInDocument, resourceAnswer, smsAnswer } from "../../base/http/answer-schemas.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { getApiEnabled, lastLedgerEntry, listSenderIds, walletCredits } from "../../domain/accounts/index.js";
import type { AcceptedSend, AcceptService, MessagePartsReader } from "../../domain/messages/index.js";
import {
  cancelScheduled,
  clickThrough,
  findMessages,
  messagesExist,
  messageTarget,
} from "../../domain/messages/index.js";
import { registerBulkJobRoutes } from "./bulk-job-routes.js";
import { registerBulkSendRoute } from "./bulk-send-route.js";
import { registerMessageExportRoute } from "./message-export.js";
import { registerMessageListRoute } from "./message-list.js";
import { registerMessageViewRoutes } from "./message-views.js";
import type { SmsPolicy, SmsSendInput } from "./policy.js";
import { deliveryReport, deliveryReports } from "./report-format.js";
import { REQUIRED_SEND_FIELDS, SendBody } from "./send-fields.js";
import { acceptIdempotent, namingField } from "./v2-accept.js";
import { Balance, BroadcastReport, DeliveryReport, ScheduleCancellation, SenderId, SmsAccepted } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock"> & {
  acceptor: AcceptService;
  smsPolicy: SmsPolicy;
  /** A message's parts for its timeline: carriers/smpp/'s, handed in by app/. */
  messageParts: MessagePartsReader;
};

const sms = { envelope: "success" } as const;
/** The account resources' envelope (the report is one of them). */
const resource = { envelope: "status" } as const;
/** What the answer promises for delivery: dispatch time plus a typical carrier delay. */
const TYPICAL_DELIVERY_MS = 5_000;

const { schedule_at: _scheduleAt, ...sendFields } = SendBody.properties;
const ScheduleBody = requiredInDocument(
  Type.Object(
    { ...sendFields, scheduled_at: Type.Optional(Type.String({ maxLength: 30 })) },
    { additionalProperties: false, title: "SmsScheduleRequest" },
  ),
  [...REQUIRED_SEND_FIELDS, "recipient", "scheduled_at"],
);
/** What a send can be refused with besides the errors of every call. */
const SEND_ERRORS = [402, 409, 422];

const GetSendQuery = Type.Object({
  ...SendBody.properties,
  unicode: Type.Optional(Type.String({ maxLength: 10 })),
  flash: Type.Optional(Type.String({ maxLength: 10 })),
  shorten_urls: Type.Optional(Type.String({ maxLength: 10 })),
  api_key: Type.Optional(Type.String({ maxLength: 200 })),
});

/**
 * The send's answer with its due time: `status` stays `queued`, the status of every SMS queue
 * entry on acceptance (the spec's "queued is the status on acceptance"), as a send with
 * `schedule_at` answers; the status call then shows `scheduled` until the message is due.
 */
export function scheduleAnswer(send: AcceptedSend) {
  const answer = sendAnswer(send);
  return {
    ...answer,
    message: "Message scheduled successfully",
    data: { ...answer.data, scheduled_at: isoUtc(new Date(send.messages[0]!.dueAt)) },
  };
}

export function sendAnswer(send: AcceptedSend) {
  const first = send.messages[0]!;
  return {
    success: true,
    message: "Message queued successfully",
    data: {
      message_id: first.id,
      queue_id: first.id,
      broadcast_id: send.broadcastId,
      status: "queued",
      estimated_delivery: isoUtc(new Date(first.dueAt + TYPICAL_DELIVERY_MS)),
      credits: fromMilli(send.credits),
    },
  };
}

function sendInput(body: SendBody, scheduleAt: string | undefined): SmsSendInput {
  return {
    senderId: body.sender_id,
    recipients: body.recipient === undefined ? [] : [body.recipient],
    message: body.message,
    route: body.route,
    unicode: body.unicode,
    flash: body.flash,
    dltEntityId: body.dlt_entity_id,
    dltTemplateId: body.dlt_template_id,
    scheduleAt,
    shortenUrls: body.shorten_urls ?? "account",
  };
}

/** Query-string booleans of the GET variant: true/false, 1/0, yes/no. */
function queryBoolean(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  const v = value.trim().toLowerCase();
  if (["true", "1", "yes"].includes(v)) return true;
  if (["false", "0", "no"].includes(v)) return false;
  throw new GatewayError("invalid_request", `Query parameter "${name}" must be true or false.`, { field: name });
}

export function registerV2SmsRoutes(v2: TypedRoutes, ctx: Deps): void {
  const policy = ctx.smsPolicy;

  /** The order of a send of one number; a refusal names its field (`schedule`: the body's schedule's name). */
  const decideOne = async (request: FastifyRequest, input: SmsSendInput, schedule = "schedule_at") => {
    try {
      return { order: (await policy.decide(request.principal!, input)).order, context: null };
    } catch (error) {
      throw namingField(error, { recipient: "recipient", schedule });
    }
  };

  const acceptSms = (request: FastifyRequest, route: string, body: SendBody, input: SmsSendInput) =>
    acceptIdempotent(ctx, request, request.principal!, route, body, () => decideOne(request, input), sendAnswer);

  v2.post(
    "/sms/send",
    {
      config: { ...sms, errors: SEND_ERRORS },
      schema: {
        operationId: "sendSms",
        summary: "Send one SMS",
        tags: ["sms"],
        body: SendBody,
        response: { 200: smsAnswer(SmsAccepted) },
      },
    },
    async (request) => {
      const body = (request.body ?? {}) as SendBody;
      return acceptSms(request, "sms/send", body, sendInput(body, body.schedule_at));
    },
  );

  v2.get(
    "/sms/send",
    {
      // A HEAD (a link checker, a monitor) must not send.
      exposeHeadRoute: false,
      config: { ...sms, errors: SEND_ERRORS, changesState: true, ignoresUnknownQuery: true },
      schema: {
        operationId: "sendSmsByQuery",
        summary: "Send one SMS with query parameters (only when GET access is enabled for the account)",
        tags: ["sms"],
        querystring: GetSendQuery,
        response: { 200: smsAnswer(SmsAccepted) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      if (!(await getApiEnabled(ctx.store.db, principal.accountId))) {
        throw new GatewayError(
          "forbidden",
          "GET access is not enabled for this account: use POST /api/v2/sms/send, or ask the operator to enable it.",
        );
      }
      const { unicode, flash, shorten_urls, api_key: _key, ...rest } = request.query;
      const shorten = queryBoolean(shorten_urls, "shorten_urls");
      const body: SendBody = {
        ...rest,
        ...(shorten === undefined ? {} : { shorten_urls: shorten }),
        ...(queryBoolean(unicode, "unicode") === undefined ? {} : { unicode: queryBoolean(unicode, "unicode") }),
        ...(queryBoolean(flash, "flash") === undefined ? {} : { flash: queryBoolean(flash, "flash") }),
      };
      return acceptSms(request, "sms/send", body, sendInput(body, body.schedule_at));
    },
  );

  v2.post(
    "/sms/schedule",
    {
      config: { ...sms, errors: SEND_ERRORS },
      schema: {
        operationId: "scheduleSms",
        summary: "Schedule one SMS (scheduled_at in the account's time zone)",
        tags: ["sms"],
        body: ScheduleBody,
        response: { 200: smsAnswer(SmsAccepted) },
      },
    },
    async (request) => {
      const { scheduled_at, ...rest } = (request.body ?? {}) as SendBody & { scheduled_at?: string };
      if (!scheduled_at?.trim()) {
        throw new GatewayError(
          "invalid_schedule",
          "scheduled_at is required (YYYY-MM-DD HH:MM:SS, account time zone).",
          {
            field: "scheduled_at",
          },
        );
      }
      const input = { ...sendInput(rest, scheduled_at), requireFutureSchedule: true };
      return acceptIdempotent(
        ctx,
        request,
        request.principal!,
        "sms/schedule",
        request.body,
        () => decideOne(request, input, "scheduled_at"),
        scheduleAnswer,
      );
    },
  );

  v2.delete(
    "/sms/schedule/:id",
    {
      config: { ...sms, errors: [404, 409] },
      schema: {
        operationId: "cancelScheduledSms",
        summary: "Cancel a scheduled SMS (queue id) or every message of a scheduled broadcast or bulk job, with refund",
        tags: ["sms"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: smsAnswer(ScheduleCancellation) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const accountId = request.principal!.accountId;
      const target = messageTarget(id);
      const exists = target && (await messagesExist(ctx.store.db, accountId, target));
      if (!target || !exists)
        throw new GatewayError("not_found", `No scheduled message with id "${id}" in this account.`);
      const cancelled = await ctx.store.transaction((trx) =>
        cancelScheduled(ctx.store, trx, ctx.clock, accountId, target),
      );
      if (cancelled.count === 0) {
        throw new GatewayError("conflict", `Nothing to cancel: "${id}" was already released for sending or is final.`);
      }
      return {
        success: true,
        message: `${cancelled.count} scheduled message${cancelled.count === 1 ? "" : "s"} cancelled and refunded`,
        data: {
          cancelled: cancelled.count,
          refunded_credits: fromMilli(cancelled.credits),
          message_ids: cancelled.ids.slice(0, 1000),
        },
      };
    },
  );

  registerBulkSendRoute(v2, ctx);
  registerBulkJobRoutes(v2, ctx);
  registerMessageListRoute(v2, ctx);
  registerMessageExportRoute(v2, ctx);
  registerMessageViewRoutes(v2, ctx);

  v2.get(
    "/sms/status/:id",
    {
      config: { ...sms, errors: [404] },
      schema: {
        operationId: "getSmsStatus",
        summary: "Delivery status by queue id, broadcast id or vendor message id",
        tags: ["sms"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        // One message by its queue or vendor id; every message of a broadcast by its broadcast id.
        response: { 200: smsAnswer(Type.Union([DeliveryReport, BroadcastReport])) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { kind, rows } = await findMessages(ctx.store.db, request.principal!.accountId, id);
      if (rows.length === 0) throw new GatewayError("not_found", `No message with id "${id}" in this account.`);
      if (kind === "broadcast") {
        return {
          success: true,
          message: "Status retrieved",
          data: {
            broadcast_id: id,
            total: rows.length,
            messages: await deliveryReports(ctx.store.db, rows),
            clicks: await clickThrough(ctx.store.db, request.principal!.accountId, id),
          },
        };
      }
      const first = rows[0]!;
      const [report] = await deliveryReports(ctx.store.db, [first]);
      return { success: true, message: "Status retrieved", data: report };
    },
  );

  v2.get(
    "/balance",
    {
      config: sms,
      schema: {
        operationId: "getBalance",
        summary: "Credit balance: SMS, and every wallet",
        tags: ["sms"],
        response: { 200: smsAnswer(Balance) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const wallets = await walletCredits(ctx.store.db, principal.accountId);
      const last = await lastLedgerEntry(ctx.store.db, principal.accountId, "sms");
      return {
        success: true,
        message: "Balance retrieved",
        data: {
          // `balance` is the SMS wallet, as the spec has it; `wallets` adds the other channels.
          balance: wallets.sms,
          currency: "credits",
          last_updated: isoUtc(last ? new Date(last.created_at) : ctx.clock.now()),
          wallets,
        },
      };
    },
  );

  v2.get(
    "/sender-ids",
    {
      config: sms,
      schema: {
        operationId: "listSenderIds",
        summary: "Sender IDs of the account",
        tags: ["sms"],
        response: { 200: smsAnswer(Type.Array(SenderId)) },
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal("pending"), Type.Literal("approved"), Type.Literal("rejected")]),
          ),
        }),
      },
    },
    async (request) => {
      const { status } = request.query;
      const rows = await listSenderIds(ctx.store.db, request.principal!.accountId, status);
      return {
        success: true,
        message: "Sender IDs retrieved",
        data: rows.map((row) => ({
          sender_id: row.sender,
          status: row.status,
          created_at: isoUtc(new Date(row.created_at)),
        })),
      };
    },
  );

  // The delivery report of one message, listed with the account resources in the document.
  v2.get(
    "/reports/:messageId",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "getMessageReport",
        response: { 200: resourceAnswer(DeliveryReport) },
        summary: "Delivery report of one message",
        tags: ["account"],
        params: Type.Object({ messageId: Type.String({ minLength: 1, maxLength: 100 }) }),
      },
    },
    async (request) => {
      const { messageId } = request.params;
      const { kind, rows } = await findMessages(ctx.store.db, request.principal!.accountId, messageId);
      const row = kind === "broadcast" ? undefined : rows[0];
      if (!row) throw new GatewayError("not_found", `No message with id "${messageId}" in this account.`);
      return { status: "success", data: deliveryReport(row) };
    },
  );
}
