// The SMPP 3.4 codec, one for both roles (issue 37): the carriers' client connector
// (delivery/carriers/smpp) and the SMPP server (channels/smpp-server) frame, write and read PDUs
// and code text with it, as Jasmin's client and server share one protocol module.
//
// Its files (others import this folder through this index only):
//   pdu.ts             cutting a byte stream into PDUs (PduReader), encodePdu, command ids; the bodies
//                      an ESME writes and reads (bind, submit_sm, submit_sm_resp, deliver_sm)
//   server-pdu.ts      the bodies an SMSC reads strictly (binds, submit_sm, data_sm, submit_multi,
//                      query_sm, cancel_sm) and writes (their responses, deliver_sm), TLV tags
//   encoding.ts        GSM-7 / UCS-2 bytes and the split of long text into UDH-concatenated parts
//   message-state.ts   message_state values and their receipt `stat:` words, for both roles
export * from "./encoding.js";
export * from "./message-state.js";
export * from "./pdu.js";
export * from "./server-pdu.js";
