// SMPP 3.4 client layer (issue 10): sessions and pools over our own PDU codec (pdu.ts), the
// encoding and splitting of text into parts, delivery receipt parsing, and the connector the
// dispatcher calls (parts stored in message_parts, one report per message).
export {
  concatenationReference,
  SmppConnector,
  type SmppConnectorOptions,
} from "./connector.js";
export {
  type DataCoding,
  decodeGsm7,
  decodeText,
  decodeUcs2,
  encodeGsm7,
  encodeUcs2,
  type SplitMessage,
  splitMessage,
} from "./encoding.js";
export type { InboundSmppMessage } from "./inbound.js";
export { pruneParts, receiptIdCandidates } from "./message-parts.js";
export { BodyWriter, COMMAND, encodePdu, type Pdu, PduReader, responseId } from "./pdu.js";
export { SmppSessionPool } from "./pool.js";
export {
  messageStatusFromParts,
  parseReceipt,
  type Receipt,
  type ReceiptStatus,
  receiptIdMatches,
} from "./receipt.js";
export {
  type DltTags,
  type PartResult,
  SmppSession,
  type SmppSessionOptions,
  type SubmitOutcome,
  type SubmitRequest,
} from "./session.js";
