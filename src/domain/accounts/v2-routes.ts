// v2 account resources: the account's status and its sender-ID requests here; its keys, DLT
// registrations, templates and credits in their own files, registered from here in the order the
// OpenAPI document lists them. Answers use the `status` envelope.

import { Type } from "typebox";
import { fromMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { isoWithOffset } from "../../base/core/time.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { actorOf, inactiveAccount } from "../auth/index.js";
import { registerV2CreditRoutes } from "./credit-routes.js";
import { registerV2DltRoutes } from "./dlt-routes.js";
import { registerV2KeyRoutes } from "./key-routes.js";
import { walletBalance } from "./ledger.js";
import type { PriceBook } from "./price-lookup.js";
import { registerV2PricingRoute } from "./pricing-route.js";
import { listSenderIds, requestSenderId, v2SenderId } from "./sender-ids.js";
import { registerV2SubAccountRoutes } from "./subaccount-routes.js";
import { registerV2TemplateRoutes } from "./template-routes.js";
import { type AccountTraffic, creditsUsed, currentAccount, today } from "./usage.js";
import { AccountStatus, SenderIdRequest } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock" | "config"> & { accountTraffic: AccountTraffic; prices: PriceBook };

const resource = { envelope: "status" } as const;
const MAX_NOTE = 500;
const NUL = "\u0000";

export function registerV2AccountRoutes(v2: TypedRoutes, ctx: Deps): void {
  registerV2KeyRoutes(v2, ctx);
  registerV2DltRoutes(v2, ctx);
  registerV2TemplateRoutes(v2, ctx);
  registerV2PricingRoute(v2, ctx);
  registerV2SubAccountRoutes(v2, ctx);
  const db = ctx.store.db;

  // ---- Account status ---------------------------------------------------------------------

  v2.get(
    "/account/status",
    {
      // The one v2 call a blocked or inactive account (or one under such a parent) is answered:
      // its answer says so (auth/http.ts, anyAccountStatus).
      config: { ...resource, anyAccountStatus: true },
      schema: {
        operationId: "getAccountStatus",
        summary: "Account status: balance, today's traffic, pending items",
        tags: ["account"],
        response: { 200: resourceAnswer(AccountStatus) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const account = await currentAccount(db, principal.accountId);
      const zone = account.time_zone;
      const { from, until } = today(ctx.clock, zone);
      const [balance, sent, used, pendingTemplates, pendingSenders] = await Promise.all([
        walletBalance(db, account.id, "sms"),
        ctx.accountTraffic.smsSent(db, account.id, from, until),
        creditsUsed(db, account.id, from, until),
        db
          .selectFrom("templates")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("account_id", "=", account.id)
          .where("status", "=", "pending")
          .executeTakeFirstOrThrow(),
        db
          .selectFrom("sender_ids")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("account_id", "=", account.id)
          .where("status", "=", "pending")
          .executeTakeFirstOrThrow(),
      ]);
      return {
        status: "success",
        data: {
          credit_balance: fromMilli(balance),
          // The counts are today's SMS that went out or are on their way; credits_used is the
          // ledger's, as the credit detail's today_used (creditsUsed).
          today: {
            total_sent: sent.sent,
            delivered: sent.delivered,
            failed: sent.failed,
            credits_used: fromMilli(used),
          },
          pending: { templates: Number(pendingTemplates.n), sender_ids: Number(pendingSenders.n) },
          // The status the account acts with: its own, or a parent's that stops it (decision 0148).
          account_status: principal.status,
          send_disabled_reason: principal.status === "active" ? null : inactiveAccount(principal, "send").message,
          // Whole seconds: `2026-11-22T15:07:28+05:30`.
          server_time: isoWithOffset(new Date(Math.floor(ctx.clock.now().getTime() / 1000) * 1000), zone),
        },
      };
    },
  );

  registerV2CreditRoutes(v2, ctx);

  // ---- Sender-ID requests ---------------------------------------------------------------

  v2.get(
    "/sender-id-requests",
    {
      config: resource,
      schema: {
        operationId: "listSenderIdRequests",
        summary: "Sender IDs requested by the account and their state",
        tags: ["account"],
        response: { 200: resourceAnswer(Type.Array(SenderIdRequest)) },
      },
    },
    async (request) => {
      const rows = await listSenderIds(db, request.principal!.accountId);
      return { status: "success", data: rows.map(v2SenderId) };
    },
  );

  v2.post(
    "/sender-id-requests",
    {
      config: { ...resource, errors: [422] },
      schema: {
        operationId: "requestSenderId",
        // 200: the sender ID was asked for before, and this is its current state.
        response: { 200: resourceAnswer(SenderIdRequest), 201: resourceAnswer(SenderIdRequest) },
        summary: "Request a sender ID (pending operator approval)",
        tags: ["account"],
        body: Type.Object(
          {
            sender_id: Type.String({ minLength: 1, maxLength: 20 }),
            note: Type.Optional(Type.Union([Type.String({ maxLength: MAX_NOTE }), Type.Null()])),
          },
          { additionalProperties: false, title: "SenderIdRequestBody" },
        ),
      },
    },
    async (request, reply) => {
      const accountId = request.principal!.accountId;
      const body = request.body;
      const note = body.note?.trim() || null;
      if (note?.includes(NUL)) {
        throw new GatewayError("invalid_request", "The note cannot contain U+0000.", { field: "note" });
      }
      // Asking again answers the current state: an approved or rejected sender ID stays so.
      const asked = await requestSenderId(ctx.store, ctx.clock, accountId, body.sender_id, note, actorOf(request));
      return reply.code(asked.created ? 201 : 200).send({ status: "success", data: v2SenderId(asked.row) });
    },
  );
}
