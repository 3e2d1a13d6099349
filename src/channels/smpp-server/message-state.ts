// A message's state as SMPP 3.4 tells it: message_state (5.2.28) and the receipt text's `stat:`
// and `err:` (appendix B). One mapping for both places a client reads it: the receipts' deliver_sm
// (outbox.ts) and query_sm_resp (query.ts). The states and their words are base/smpp's table,
// which the carriers' client reads receipts with.
import { MESSAGE_STATE, type MessageStateName, RECEIPT_STAT } from "../../base/smpp/index.js";

export interface SmppState {
  stat: string;
  state: number;
  /** The network error code, three digits; `001` for a failure whose code is not a number. */
  err: string;
  /** SMPP's final states; ENROUTE is the only other one a message of ours is in. */
  final: boolean;
}

/** Failure codes of a carrier that refused the message for good (docs/api.md's error table). */
const REJECTIONS = new Set(["rejected", "REJECTD", "bad_request", "unencodable"]);

function stateOf(name: MessageStateName, err: string, final: boolean): SmppState {
  return { stat: RECEIPT_STAT[name], state: MESSAGE_STATE[name], err, final };
}

const ENROUTE = stateOf("ENROUTE", "000", false);

export function smppStateOf(message: { status: string; error_code?: string | null }): SmppState {
  // Queued, scheduled, dispatching, submitted (and WhatsApp's sending, sent): still on its way.
  // SMPP 3.4's ACCEPTED is a final state (read by customer service), not "taken by the SMSC".
  if (message.status === "delivered" || message.status === "read") {
    return stateOf("DELIVERED", "000", true);
  }
  if (message.status === "cancelled") return stateOf("DELETED", "000", true);
  if (message.status !== "failed") return ENROUTE;
  if (message.error_code === "expired") {
    return stateOf("EXPIRED", "000", true);
  }
  const numeric = /^\d{1,3}$/.test(message.error_code ?? "") ? message.error_code!.padStart(3, "0") : "001";
  // Refused by the carrier (at submit, or its receipt said REJECTD): REJECTED, as Kannel and Jasmin report it.
  if (REJECTIONS.has(message.error_code ?? "")) {
    return stateOf("REJECTED", numeric, true);
  }
  return stateOf("UNDELIVERABLE", numeric, true);
}
