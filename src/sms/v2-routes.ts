// v2 SMS: send, status, balance and sender IDs. The adapter only parses and formats; the
// rules are in policy.ts and acceptance in messages/accept.ts.
import { Type } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { listSenderIds, walletBalance } from "../accounts/index.js";
import type { AppContext } from "../app/context.js";
import type { Principal } from "../auth/authenticator.js";
import { isoUtc } from "../core/clock.js";
import { fromMilli } from "../core/credits.js";
import { GatewayError } from "../core/errors.js";
import type { AcceptedSend } from "../messages/index.js";
import { findMessages } from "../messages/index.js";
import { idempotencyKeyOf, requestHash, storedAnswer } from "./idempotency.js";
import type { SmsSendInput } from "./policy.js";
import { deliveryReport } from "./report-format.js";

const sms = { envelope: "success" } as const;
/** What the answer promises for delivery: dispatch time plus a typical carrier delay. */
const TYPICAL_DELIVERY_MS = 5_000;

const SendBody = Type.Object(
  {
    sender_id: Type.Optional(Type.String({ maxLength: 20 })),
    recipient: Type.Optional(Type.String({ maxLength: 20 })),
    message: Type.Optional(Type.String({ maxLength: 10_000 })),
    route: Type.Optional(Type.String({ maxLength: 20 })),
    dlt_entity_id: Type.Optional(Type.String({ maxLength: 30 })),
    dlt_template_id: Type.Optional(Type.String({ maxLength: 30 })),
    schedule_at: Type.Optional(Type.String({ maxLength: 30 })),
    unicode: Type.Optional(Type.Boolean()),
    flash: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
type SendBody = {
  sender_id?: string;
  recipient?: string;
  message?: string;
  route?: string;
  dlt_entity_id?: string;
  dlt_template_id?: string;
  schedule_at?: string;
  unicode?: boolean;
  flash?: boolean;
};

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

export function registerV2SmsRoutes(v2: FastifyInstance, ctx: AppContext): void {
  const policy = ctx.smsPolicy;

  /** Accepts one SMS send, honouring Idempotency-Key; shared by POST and the GET variant. */
  async function acceptSms(request: FastifyRequest, principal: Principal, body: SendBody) {
    const key = idempotencyKeyOf(request.headers["idempotency-key"]);
    const hash = key ? requestHash("sms/send", body) : "";
    if (key) {
      const stored = await storedAnswer(ctx.store.db, principal.accountId, key, hash);
      if (stored !== undefined) return stored;
    }
    const input: SmsSendInput = {
      senderId: body.sender_id,
      recipients: body.recipient === undefined ? [] : [body.recipient],
      message: body.message,
      route: body.route,
      unicode: body.unicode,
      flash: body.flash,
      dltEntityId: body.dlt_entity_id,
      dltTemplateId: body.dlt_template_id,
      scheduleAt: body.schedule_at,
    };
    const { order } = await policy.decide(principal, input);
    if (key) order.idempotency = { key, requestHash: hash, respond: (send) => JSON.stringify(sendAnswer(send)) };
    const outcome = await ctx.acceptor.accept(order);
    if (outcome.kind === "accepted") return sendAnswer(outcome.send);
    // A concurrent request with the same key committed first: answer what it answered.
    const stored = key ? await storedAnswer(ctx.store.db, principal.accountId, key, hash) : undefined;
    if (stored === undefined)
      throw new GatewayError("conflict", "A concurrent request with this Idempotency-Key is in progress.");
    return stored;
  }

  v2.post(
    "/sms/send",
    { config: sms, schema: { summary: "Send one SMS", tags: ["sms"], body: SendBody } },
    async (request) => acceptSms(request, request.principal!, (request.body ?? {}) as SendBody),
  );

  v2.get(
    "/sms/status/:id",
    {
      config: sms,
      schema: {
        summary: "Delivery status by queue id, broadcast id or vendor message id",
        tags: ["sms"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const { kind, rows } = await findMessages(ctx.store.db, request.principal!.accountId, id);
      if (rows.length === 0) throw new GatewayError("not_found", `No message with id "${id}" in this account.`);
      if (kind === "broadcast") {
        return {
          success: true,
          message: "Status retrieved",
          data: { broadcast_id: id, total: rows.length, messages: rows.map(deliveryReport) },
        };
      }
      const first = rows[0]!;
      return { success: true, message: "Status retrieved", data: deliveryReport(first) };
    },
  );

  v2.get("/balance", { config: sms, schema: { summary: "SMS credit balance", tags: ["sms"] } }, async (request) => {
    const principal = request.principal!;
    const balance = await walletBalance(ctx.store.db, principal.accountId, "sms");
    const last = await ctx.store.db
      .selectFrom("ledger_entries")
      .select("created_at")
      .where("account_id", "=", principal.accountId)
      .where("wallet", "=", "sms")
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
    return {
      success: true,
      message: "Balance retrieved",
      data: {
        balance: fromMilli(balance),
        currency: "credits",
        last_updated: isoUtc(last ? new Date(last.created_at) : ctx.clock.now()),
      },
    };
  });

  v2.get(
    "/sender-ids",
    {
      config: sms,
      schema: {
        summary: "Sender IDs of the account",
        tags: ["sms"],
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal("pending"), Type.Literal("approved"), Type.Literal("rejected")]),
          ),
        }),
      },
    },
    async (request) => {
      const { status } = request.query as { status?: "pending" | "approved" | "rejected" };
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
}
