// Accepting a v2 send with Idempotency-Key: a retry with the same key and body answers what
// the first request answered, with no second message or charge. Shared by send, the GET
// variant, schedule and bulk.

import type { FastifyRequest } from "fastify";
import type { Principal } from "../auth/index.js";
import { GatewayError } from "../core/errors.js";
import type { AcceptedSend, AcceptService, SendOrder } from "../messages/index.js";
import { idempotencyKeyOf, requestHash, storedAnswer } from "../messages/index.js";
import type { Runtime } from "../runtime/runtime.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store"> & { acceptor: AcceptService };

export interface PreparedSend<T> {
  order: SendOrder;
  /** The answer for the accepted send (stored for replays when a key is given). */
  answer: (send: AcceptedSend) => T;
}

export async function acceptIdempotent<T>(
  ctx: Deps,
  request: FastifyRequest,
  principal: Principal,
  route: string,
  body: unknown,
  prepare: () => Promise<PreparedSend<T>>,
): Promise<T | unknown> {
  const key = idempotencyKeyOf(request.headers["idempotency-key"]);
  const hash = key ? requestHash(route, body) : "";
  if (key) {
    const stored = await storedAnswer(ctx.store.db, principal.accountId, key, hash);
    if (stored !== undefined) return stored;
  }
  const { order, answer } = await prepare();
  if (key) order.idempotency = { key, requestHash: hash, respond: (send) => JSON.stringify(answer(send)) };
  const outcome = await ctx.acceptor.accept(order);
  if (outcome.kind === "accepted") return answer(outcome.send);
  // A concurrent request with the same key committed first: answer what it answered.
  const stored = key ? await storedAnswer(ctx.store.db, principal.accountId, key, hash) : undefined;
  if (stored === undefined) {
    throw new GatewayError("conflict", "A concurrent request with this Idempotency-Key is in progress.");
  }
  return stored;
}
