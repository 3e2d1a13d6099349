// Operator API for the refund policy per reason (refund-policy.ts), under /admin/api: GET answers
// every reason with whether its carrier failures are refunded and why; PUT {reason} sets the
// operator's choice, DELETE {reason} gives the reason back to REFUND_CARRIER_REASONS.
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { actorOf } from "../../domain/auth/index.js";
import { RefundPolicy } from "./carrier-schemas.js";
import { changeRefundChoice, describeRefundPolicy } from "./refund-policy.js";

// The reason is checked against the error catalogue by refund-policy.ts, which says so in words.
const Reason = Type.Object({ reason: Type.String({ maxLength: 100 }) });
const Choice = Type.Object({ refund: Type.Boolean() }, { additionalProperties: false });

export function registerRefundPolicyRoutes(admin: TypedRoutes, ctx: Pick<Runtime, "store" | "clock" | "config">) {
  const defaults = ctx.config.refundCarrierReasons;
  const acting = (request: FastifyRequest) => ({ store: ctx.store, clock: ctx.clock, actor: actorOf(request) });
  const policy = async () => ({ status: "success", data: await describeRefundPolicy(ctx.store.db, defaults) });

  admin.get("/refund-policy", { schema: { response: operatorAnswer(RefundPolicy) } }, policy);

  admin.put(
    "/refund-policy/:reason",
    { schema: { params: Reason, body: Choice, response: operatorAnswer(RefundPolicy) } },
    async (request) => {
      await changeRefundChoice(acting(request), request.params.reason, request.body.refund);
      return policy();
    },
  );

  admin.delete(
    "/refund-policy/:reason",
    { schema: { params: Reason, response: operatorAnswer(RefundPolicy) } },
    async (request) => {
      await changeRefundChoice(acting(request), request.params.reason, undefined);
      return policy();
    },
  );
}
