// A message's state as SMPP 3.4 tells it: message_state (5.2.28) and the receipt text's `stat:`
// and `err:` (appendix B). One mapping for both places a client reads it: the receipts' deliver_sm
// (outbox.ts) and query_sm_resp (query.ts).

export const MESSAGE_STATE = {
  ENROUTE: 1,
  DELIVERED: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIVERABLE: 5,
  ACCEPTED: 6,
  UNKNOWN: 7,
  REJECTED: 8,
} as const;

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

const ENROUTE: SmppState = { stat: "ENROUTE", state: MESSAGE_STATE.ENROUTE, err: "000", final: false };

export function smppStateOf(message: { status: string; error_code?: string | null }): SmppState {
  // Queued, scheduled, dispatching, submitted (and WhatsApp's sending, sent): still on its way.
  // SMPP 3.4's ACCEPTED is a final state (read by customer service), not "taken by the SMSC".
  if (message.status === "delivered" || message.status === "read") {
    return { stat: "DELIVRD", state: MESSAGE_STATE.DELIVERED, err: "000", final: true };
  }
  if (message.status === "cancelled") return { stat: "DELETED", state: MESSAGE_STATE.DELETED, err: "000", final: true };
  if (message.status !== "failed") return ENROUTE;
  if (message.error_code === "expired") {
    return { stat: "EXPIRED", state: MESSAGE_STATE.EXPIRED, err: "000", final: true };
  }
  const numeric = /^\d{1,3}$/.test(message.error_code ?? "") ? message.error_code!.padStart(3, "0") : "001";
  // Refused by the carrier (at submit, or its receipt said REJECTD): REJECTED, as Kannel and Jasmin report it.
  if (REJECTIONS.has(message.error_code ?? "")) {
    return { stat: "REJECTD", state: MESSAGE_STATE.REJECTED, err: numeric, final: true };
  }
  return { stat: "UNDELIV", state: MESSAGE_STATE.UNDELIVERABLE, err: numeric, final: true };
}
