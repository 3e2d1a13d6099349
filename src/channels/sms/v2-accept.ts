// Accepting a v2 send with Idempotency-Key: a retry with the same key and body answers what
// the first request answered, with no second message or charge. Shared by send, the GET
// variant, schedule and bulk. And the field of the body a refusal names.

import type { FastifyRequest } from "fastify";
import { type ErrorCode, GatewayError, refusalAt } from "../../base/core/errors.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Principal } from "../../domain/auth/index.js";
import type { AcceptedSend, AcceptService, SendOrder } from "../../domain/messages/index.js";
import { idempotencyKeyOf, isStoredSend, requestHash, storedAnswer } from "../../domain/messages/index.js";
import type { SmsSendInput } from "./policy.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store"> & { acceptor: AcceptService };

export interface PreparedSend<C> {
  order: SendOrder;
  /** What the answer needs beside the accepted send: stored with it for a retry's answer. */
  context: C;
}

/**
 * Accepts the send `prepare` makes and answers `answer(send, context)`. A request with an
 * Idempotency-Key that was accepted before is not prepared again (its checks may answer
 * otherwise now): its stored send and context make the same answer. `accepted` runs only when
 * this request's send was accepted (not for a retry's stored answer).
 */
export async function acceptIdempotent<T, C>(
  ctx: Deps,
  request: FastifyRequest,
  principal: Principal,
  route: string,
  body: unknown,
  prepare: () => Promise<PreparedSend<C>>,
  answer: (send: AcceptedSend, context: C) => T,
  accepted?: (send: AcceptedSend) => void,
): Promise<T | unknown> {
  const key = idempotencyKeyOf(request.headers["idempotency-key"]);
  const hash = key ? requestHash(route, body) : "";
  const replay = async () => {
    const stored = key ? await storedAnswer(ctx.store.db, principal.accountId, key, hash) : undefined;
    // Keys stored before the send itself was: the answer as it was formatted then.
    return isStoredSend(stored) ? answer(stored.send, stored.context as C) : stored;
  };
  if (key) {
    const stored = await replay();
    if (stored !== undefined) return stored;
  }
  const { order, context } = await prepare();
  if (key) order.idempotency = { key, requestHash: hash, context };
  const outcome = await ctx.acceptor.accept(order);
  if (outcome.kind === "accepted") {
    accepted?.(outcome.send);
    return answer(outcome.send, context);
  }
  // A concurrent request with the same key committed first: answer what it answered.
  const stored = await replay();
  if (stored === undefined) {
    throw new GatewayError("conflict", "A concurrent request with this Idempotency-Key is in progress.");
  }
  return stored;
}

/** The v2 body's name of each input of the SMS rules a refusal can be about (GatewayError.about). */
const BODY_FIELDS: Partial<Record<keyof SmsSendInput, string>> = {
  dltEntityId: "dlt_entity_id",
  dltTemplateId: "dlt_template_id",
};

/**
 * A refusal of one field of a v2 send's body named by that field (`error.field`), as the schema's
 * refusals and WhatsApp's are: the SMS rules, shared with the legacy families, name none (a
 * missing number names the send's `recipient`, which `recipient` here replaces: `recipients[0]`).
 * A code of one field names it; a code of several cases (a DLT template id refused, a text that
 * matches no template) names the input the rules marked, if any.
 */
export function namingField(error: unknown, fields: { recipient: string; schedule: string }): unknown {
  if (!(error instanceof GatewayError)) return error;
  const named: Partial<Record<ErrorCode, string>> = {
    invalid_recipient: fields.recipient,
    missing_sender_id: "sender_id",
    invalid_sender_id: "sender_id",
    missing_message: "message",
    unicode_not_allowed: "message",
    message_too_long: "message",
    invalid_route: "route",
    invalid_schedule: fields.schedule,
    dlt_header_not_whitelisted: "sender_id",
  };
  const field = named[error.code] ?? BODY_FIELDS[error.about as keyof SmsSendInput];
  if (field === undefined) return error;
  if (error.code !== "invalid_recipient" && typeof error.details?.field === "string") return error;
  return refusalAt(error, () => field);
}
