// The v2 face of voice, for JSON clients and the console: the account's caller numbers (and its
// request for one, pending until the operator approves it) and a call placed with the same rules,
// order and charge as /voicecall/v1 (VoicePolicy, then the Acceptor), answered in the v2 envelope.

import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { fromMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { PriceBook } from "../../domain/accounts/index.js";
import { actorOf } from "../../domain/auth/index.js";
import type { AcceptService } from "../../domain/messages/index.js";
import { VoicePolicy } from "./call-policy.js";
import { type CallerIdView, callerIdsOfAccount, requestCallerId } from "./caller-ids.js";
import { CallerId, PlacedCall } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock"> & { acceptor: AcceptService; prices: PriceBook };

const resource = { envelope: "status" } as const;

function v2View(callerId: CallerIdView) {
  return {
    id: callerId.id,
    number: callerId.number,
    status: callerId.status,
    rejection_reason: callerId.rejection_reason,
    created_at: isoUtc(new Date(callerId.created_at)),
  };
}

export function registerV2VoiceRoutes(v2: TypedRoutes, ctx: Deps): void {
  const deps = { store: ctx.store, clock: ctx.clock };
  const policy = new VoicePolicy(ctx.store, ctx.clock, ctx.config.voice, ctx.prices);
  const accountOf = (request: { principal?: { accountId: number; username: string } }) => ({
    id: request.principal!.accountId,
    username: request.principal!.username,
  });

  v2.get(
    "/voice/caller-ids",
    {
      config: resource,
      schema: {
        operationId: "listVoiceCallerIds",
        summary: "The account's caller numbers, approved, pending and rejected",
        tags: ["voice"],
        response: { 200: resourceAnswer(Type.Array(CallerId)) },
      },
    },
    async (request) => ({
      status: "success",
      data: (await callerIdsOfAccount(deps, accountOf(request))).map(v2View),
    }),
  );

  v2.post(
    "/voice/caller-ids",
    {
      config: resource,
      schema: {
        operationId: "requestVoiceCallerId",
        summary: "Ask for a caller number (pending operator approval)",
        tags: ["voice"],
        body: Type.Object(
          { number: Type.String({ minLength: 1, maxLength: 32 }) },
          { additionalProperties: false, title: "VoiceCallerIdRequest" },
        ),
        response: { 200: resourceAnswer(CallerId), 201: resourceAnswer(CallerId) },
      },
    },
    async (request, reply) => {
      const { number } = request.body;
      const who = { ...deps, actor: actorOf(request) };
      const { created, callerId } = await requestCallerId(who, accountOf(request), number);
      return reply.code(created ? 201 : 200).send({ status: "success", data: v2View(callerId) });
    },
  );

  v2.post(
    "/voice/calls",
    {
      config: { ...resource, errors: [402, 422] },
      schema: {
        operationId: "placeVoiceCall",
        summary: "Place a text-to-speech call (the rules and charge of /voicecall/v1)",
        tags: ["voice"],
        body: Type.Object(
          {
            from: Type.String({ maxLength: 32 }),
            to: Type.String({ maxLength: 32 }),
            text: Type.String({ maxLength: 8_000 }),
          },
          { additionalProperties: false, title: "VoiceCallRequest" },
        ),
        response: { 201: resourceAnswer(PlacedCall) },
      },
    },
    async (request, reply) => {
      const order = await policy.decide(request.principal!, request.body);
      const outcome = await ctx.acceptor.accept(order);
      const message = outcome.kind === "accepted" ? outcome.send.messages[0] : undefined;
      if (outcome.kind !== "accepted" || !message) throw new GatewayError("internal_error");
      return reply.code(201).send({
        status: "success",
        data: {
          broadcast_id: outcome.send.broadcastId,
          message_id: message.id,
          to: message.recipient,
          credits: fromMilli(outcome.send.credits),
        },
      });
    },
  );
}
