// The generic promotional sender (`PROMOTIONAL`, route P) as a carrier gets it: DLT carries
// promotional SMS only from a registered 6-digit numeric header, so the operator's own one
// (PROMOTIONAL_HEADER) is the source address; the message keeps `PROMOTIONAL` for the client's
// reads. Unset, a real carrier would drop the message after it was charged: it fails, refunded,
// before it is sent (decision 0177).
import type { MessageRow } from "../../base/store/schema.js";
import type { SubmitResult } from "../dispatch/index.js";

/** The sender ID that means "the operator's generic promotional header" on route P (channels/sms/policy.ts takes it on no other). */
export const GENERIC_PROMOTIONAL_SENDER = "PROMOTIONAL";

/** The header a message goes out from at a carrier, given the operator's PROMOTIONAL_HEADER. */
export function headerAtCarrier(sender: string, promotionalHeader: string | undefined): string {
  return sender === GENERIC_PROMOTIONAL_SENDER && promotionalHeader ? promotionalHeader : sender;
}

/** The source address of `message` at a carrier, or why it cannot be sent from there. */
export function carrierSource(
  message: Pick<MessageRow, "sender">,
  promotionalHeader: string | undefined,
): { ok: true; source: string } | { ok: false; result: SubmitResult } {
  if (message.sender !== GENERIC_PROMOTIONAL_SENDER || promotionalHeader) {
    return { ok: true, source: headerAtCarrier(message.sender, promotionalHeader) };
  }
  return {
    ok: false,
    result: {
      ok: false,
      retryable: false,
      code: "dlt_header_not_whitelisted",
      message:
        "The generic sender PROMOTIONAL has no DLT header at this carrier, which drops it: the operator sets PROMOTIONAL_HEADER to its registered 6-digit promotional header.",
    },
  };
}

/**
 * `result` with the source address the carrier got when it is not the message's sender, for the
 * dispatcher to record with the submit or the refusal (decision 0187): the operator's view then
 * says the header of that moment, not what today's PROMOTIONAL_HEADER would be.
 */
export function withCarrierSource(result: SubmitResult, sender: string, source: string): SubmitResult {
  return source === sender ? result : { ...result, source };
}
