// SMPP 3.4's message states: the number `message_state` carries (5.2.28, in query_sm_resp and a
// receipt's TLV) and the word a receipt's text writes for it in `stat:` (appendix B). One table
// for both roles: the server tells its clients a message's state (channels/smpp-server), the
// carriers' client reads an SMSC's receipts (delivery/carriers/smpp).

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

export type MessageStateName = keyof typeof MESSAGE_STATE;

/** Each state's word in a receipt's `stat:`, as appendix B writes it (`DELIVRD`, `UNDELIV`, …). */
export const RECEIPT_STAT: Readonly<Record<MessageStateName, string>> = {
  ENROUTE: "ENROUTE",
  DELIVERED: "DELIVRD",
  EXPIRED: "EXPIRED",
  DELETED: "DELETED",
  UNDELIVERABLE: "UNDELIV",
  ACCEPTED: "ACCEPTD",
  UNKNOWN: "UNKNOWN",
  REJECTED: "REJECTD",
};

const STAT_BY_STATE = new Map<number, string>(
  (Object.keys(MESSAGE_STATE) as MessageStateName[]).map((name) => [MESSAGE_STATE[name], RECEIPT_STAT[name]]),
);

/** The `stat:` word of a message_state value; undefined for a value SMPP 3.4 does not define. */
export function statOfMessageState(state: number): string | undefined {
  return STAT_BY_STATE.get(state);
}
