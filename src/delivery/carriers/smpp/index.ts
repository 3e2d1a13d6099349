// SMPP 3.4 client layer (issue 10): sessions and pools over the PDU codec of base/smpp, delivery receipt parsing, and the connector the
// dispatcher calls (parts stored in message_parts, one report per message).
//
// Its files (others import this folder through this index only):
//   connector.ts       the connector the dispatcher calls: parts to the pool, stored once all are taken
//   connector-reports.ts  its receipts applied in groups (unmatched ones looked up again), one report
//                      per message; reports lost in a crash found again at start
//   early-receipts.ts  receipts that named no stored part yet, kept before they are answered and
//                      applied by whichever process finds the part stored
//   session.ts         one SMSC account's bind(s): window, throughput cap, throttling retried in order
//   link.ts            one bound connection: bind, enquire_link, reconnect back-off, request time-outs
//   pool.ts            several binds to one carrier account; least-loaded choice, receipts from any
//   receipt.ts         delivery receipt text and TLVs parsed; a message's status from its parts
//   inbound.ts         deliver_sm sorted into receipts and MO messages, MO parts reassembled
//   stored-parts.ts    the parts in message_parts: stored after submit (a resend keeps its latest
//                      send's), read back; a message's parts for its timeline
//   receipt-matching.ts  receipts matched to stored parts (hex ids read in decimal) and applied in groups
//   finished-parts.ts  a message's report once its parts are final, reports lost in a crash found
//                      again, parts pruned
//   grouped-writes.ts  one-at-a-time writes (parts, receipts) applied in growing groups
//   command-status.ts  submit_sm refusals (command_status) in words a client can act on
//   throughput.ts      the per-connection PDU rate cap (GCRA)
//   smpp-package.d.ts  the types of the part of the `smpp` package we use

export {
  concatenationReference,
  SmppConnector,
  type SmppConnectorOptions,
} from "./connector.js";
export { pruneParts } from "./finished-parts.js";
export type { InboundSmppMessage } from "./inbound.js";
export { SmppSessionPool } from "./pool.js";
export {
  messageStatusFromParts,
  parseReceipt,
  type Receipt,
  type ReceiptStatus,
  receiptIdMatches,
} from "./receipt.js";
export { receiptIdCandidates } from "./receipt-matching.js";
export {
  type DltTags,
  type PartResult,
  SmppSession,
  type SmppSessionOptions,
  type SubmitOutcome,
  type SubmitRequest,
} from "./session.js";
export { partsOfMessage, removePartsOf } from "./stored-parts.js";
