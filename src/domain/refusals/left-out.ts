// The recipients an accepted send went on without, as a family hands them to the log of
// refusals: set on the request (request.leftOut) once the send is accepted, written by the
// onSend hook with the request's own facts (app/refusal-capture.ts), a row each.
import type { GatewayError } from "../../base/core/errors.js";
import type { LeftOutRecipient } from "./refusal-log.js";

/** What a family says of an accepted send's left-out recipients. */
export interface LeftOut {
  broadcastId: string;
  jobId?: number | undefined;
  recipients: readonly LeftOutRecipient[];
}

declare module "fastify" {
  interface FastifyRequest {
    /** The recipients an accepted send went on without (a multi-recipient send's DND, invalid, …). */
    leftOut?: LeftOut;
  }
}

/** The policy's rejections as left-out recipients; `answer` writes what the family said of one. */
export function leftOutOf(
  rejected: readonly { recipient: string; error: Pick<GatewayError, "code" | "message"> }[],
  answer?: (error: Pick<GatewayError, "code" | "message">) => string,
): LeftOutRecipient[] {
  return rejected.map(({ recipient, error }) => ({
    recipient,
    code: error.code,
    reason: error.message,
    ...(answer ? { answer: answer(error) } : {}),
  }));
}
