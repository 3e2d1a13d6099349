// The console's views of an account's messages, on the v2 API like every other read:
//   GET /api/v2/messages/summary     today's and the last 7 days' traffic per channel
//   GET /api/v2/messages/per-minute  messages per minute over the last hours
//   GET /api/v2/messages/{id}        one message with its timeline, cost, carrier and webhooks
// A reseller reads its tree's below it too: `?subaccount=` names an account at any depth below, and
// a message's page finds a message of its tree by id, naming its sub-account and the accounts between
// (`subaccount_via`; another tree's: 404).
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { storedQueueId } from "../../base/core/ids.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import { queryInt } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { readableAccount } from "../../domain/accounts/index.js";
import { SubAccountParam } from "../../domain/accounts/v2-schemas.js";
import {
  type MessagePartsReader,
  messagesPerMinute,
  trafficSummary,
  treeMessage,
} from "../../domain/messages/index.js";
import { messageDetail } from "./message-detail.js";
import { MessageDetail, MessageSummary, PerMinute } from "./v2-schemas.js";

const resource = { envelope: "status" } as const;
const PER_MINUTE_HOURS = 24;
const iso = (ms: number) => isoUtc(new Date(ms));

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
        querystring: Type.Object({ subaccount: SubAccountParam }, { additionalProperties: false }),
        response: { 200: resourceAnswer(MessageSummary) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const { id: accountId } = await readableAccount(db, principal.accountId, request.query.subaccount);
      const summary = await trafficSummary(db, accountId, ctx.clock.now(), principal.timeZone);
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
          { hours: Type.Optional(Type.String({ maxLength: 10 })), subaccount: SubAccountParam },
          { additionalProperties: false },
        ),
        response: { 200: resourceAnswer(PerMinute) },
      },
    },
    async (request) => {
      const { hours, subaccount } = request.query;
      const span = queryInt(hours, "hours", PER_MINUTE_HOURS, 1, PER_MINUTE_HOURS);
      const { id: accountId } = await readableAccount(db, request.principal!.accountId, subaccount);
      const series = await messagesPerMinute(db, accountId, ctx.clock.now(), span);
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
      const queueId = storedQueueId(id);
      const found = queueId ? await treeMessage(db, principal.accountId, queueId) : undefined;
      // Another tree's message is answered exactly as an unknown id.
      if (!found) throw new GatewayError("not_found", `No message with id "${id}" in this account.`);
      const detail = await messageDetail(db, found.row, ctx.messageParts);
      return {
        status: "success",
        data:
          found.subaccount === undefined
            ? detail
            : { ...detail, subaccount: found.subaccount, subaccount_via: found.place.via },
      };
    },
  );
}
