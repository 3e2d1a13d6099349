// The console's views of an account's messages, on the v2 API like every other read:
//   GET /api/v2/messages/summary     today's and the last 7 days' traffic per channel
//   GET /api/v2/messages/per-minute  messages per minute over the last hours
//   GET /api/v2/messages/{id}        one message with its timeline, cost, carrier and webhooks
import { Type } from "@fastify/type-provider-typebox";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { isQueueId } from "../../base/core/ids.js";
import { queryInt } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import { Credits, NullableString, NullableTime, resourceAnswer, Time } from "../../base/http/v2-answers.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { MessageRow } from "../../base/store/schema.js";
import {
  findMessage,
  type MessagePartsReader,
  messagesPerMinute,
  TRAFFIC_CHANNELS,
  trafficSummary,
} from "../../domain/messages/index.js";
import { WebhookDelivery } from "../../domain/webhooks/schemas.js";
import { messageDetail } from "./message-detail.js";
import { DeliveryReport } from "./v2-schemas.js";

const resource = { envelope: "status" } as const;
const PER_MINUTE_HOURS = 24;
const iso = (ms: number) => isoUtc(new Date(ms));

const Counts = Type.Object({
  sent: Type.Integer({ description: "Messages accepted, whatever their status now." }),
  delivered: Type.Integer({ description: "Delivered (WhatsApp: delivered or read)." }),
  failed: Type.Integer(),
});

const Summary = Type.Object(
  {
    time_zone: Type.String({ description: "The account's time zone: its days." }),
    today_from: Time,
    week_from: Time,
    channels: Type.Object(
      Object.fromEntries(
        TRAFFIC_CHANNELS.map((channel) => [channel, Type.Object({ today: Counts, last_7_days: Counts })]),
      ),
    ),
  },
  { title: "MessageSummary" },
);

const PerMinute = Type.Object(
  {
    from: Time,
    to: Time,
    minutes: Type.Array(
      Type.Object({
        at: Time,
        sent: Type.Integer(),
        delivered: Type.Integer(),
        failed: Type.Integer(),
      }),
    ),
  },
  { title: "MessagesPerMinute" },
);

const MessageDetail = Type.Object(
  {
    message: DeliveryReport,
    cost: Type.Object({
      credits: Credits,
      wallet: Type.String(),
      refunded: Type.Boolean({
        description: "The credits went back to the wallet (failed before a carrier, cancelled).",
      }),
    }),
    carrier: Type.Object({ connector: NullableString(), vendor_message_id: NullableString() }),
    parts: Type.Array(
      Type.Object({
        part: Type.Integer({ minimum: 1 }),
        status: Type.String({ description: "pending, delivered or failed: the part's receipt." }),
        vendor_message_id: Type.String(),
        error_code: NullableString(),
        done_at: NullableTime(),
      }),
    ),
    timeline: Type.Array(
      Type.Object({
        at: Time,
        event: Type.String({
          description:
            "accepted, scheduled, submitted, part N of M delivered|failed, delivered, read, failed, cancelled, refunded, webhook",
        }),
        detail: NullableString(),
      }),
    ),
    webhooks: Type.Array(WebhookDelivery),
  },
  { title: "MessageDetail" },
);

export function registerMessageViewRoutes(
  v2: TypedRoutes,
  ctx: Pick<Runtime, "store" | "clock"> & { messageParts: MessagePartsReader },
): void {
  const db = ctx.store.db;

  v2.get(
    "/messages/summary",
    {
      config: resource,
      schema: {
        operationId: "getMessageSummary",
        summary: "Messages accepted today and in the last 7 days, delivered and failed, per channel",
        tags: ["messages"],
        response: { 200: resourceAnswer(Summary) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const summary = await trafficSummary(db, principal.accountId, ctx.clock.now(), principal.timeZone);
      return {
        status: "success",
        data: {
          time_zone: principal.timeZone,
          today_from: iso(summary.todayFrom),
          week_from: iso(summary.weekFrom),
          channels: summary.channels,
        },
      };
    },
  );

  v2.get(
    "/messages/per-minute",
    {
      config: resource,
      schema: {
        operationId: "getMessagesPerMinute",
        summary: "Messages accepted per minute over the last hours, and how many are delivered and failed",
        tags: ["messages"],
        querystring: Type.Object(
          { hours: Type.Optional(Type.String({ maxLength: 10 })) },
          { additionalProperties: false },
        ),
        response: { 200: resourceAnswer(PerMinute) },
      },
    },
    async (request) => {
      const { hours } = request.query;
      const span = queryInt(hours, "hours", PER_MINUTE_HOURS, 1, PER_MINUTE_HOURS);
      const series = await messagesPerMinute(db, request.principal!.accountId, ctx.clock.now(), span);
      return {
        status: "success",
        data: {
          from: iso(series.from),
          to: iso(series.to),
          minutes: series.minutes.map(({ at, ...counts }) => ({ at: iso(at), ...counts })),
        },
      };
    },
  );

  v2.get(
    "/messages/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "getMessage",
        summary: "One message: its timeline, cost, carrier id and the webhook deliveries it caused",
        tags: ["messages"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: resourceAnswer(MessageDetail) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const principal = request.principal!;
      const row: MessageRow | undefined = isQueueId(id)
        ? await findMessage(db, principal.accountId, `q${id.slice(1).toUpperCase()}`)
        : undefined;
      // Another account's message is answered exactly as an unknown id.
      if (!row) throw new GatewayError("not_found", `No message with id "${id}" in this account.`);
      return { status: "success", data: await messageDetail(db, row, ctx.messageParts) };
    },
  );
}
