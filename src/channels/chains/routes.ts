// v2's fallback send: POST /api/v2/send (a chain of steps, each a send of its channel) and
// GET /api/v2/send/{chain_id}. Parse, call Chains, answer.
import { Type } from "typebox";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Chains } from "./chains.js";
import { Chain, ChainSendRequest } from "./schemas.js";

type Deps = { chains: Chains };

const config = { envelope: "status" } as const;
const tags = ["send"];

export function registerV2ChainRoutes(v2: TypedRoutes, ctx: Deps): void {
  v2.post(
    "/send",
    {
      config: { ...config, errors: [409] },
      schema: {
        operationId: "sendWithFallback",
        summary:
          "Send by one channel and fall back to the next when a condition is met (each step charged as a send of its channel)",
        tags,
        body: ChainSendRequest,
        response: { 200: resourceAnswer(Chain) },
      },
    },
    async (request) => ({
      status: "success",
      data: await ctx.chains.start(request.principal!, request.body, request.headers["idempotency-key"]),
    }),
  );

  v2.get(
    "/send/:chain_id",
    {
      config: { ...config, errors: [404] },
      schema: {
        operationId: "getSendChain",
        summary: "A fallback send's steps, their messages and how each stands",
        tags,
        params: Type.Object({ chain_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: resourceAnswer(Chain) },
      },
    },
    async (request) => ({ status: "success", data: await ctx.chains.get(request.principal!, request.params.chain_id) }),
  );
}
