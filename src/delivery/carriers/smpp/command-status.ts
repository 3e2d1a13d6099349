// What an SMSC's refusal of a submit_sm means, in words a client can act on: the command_status
// values of SMPP 3.4 (section 5.1.3) that answer a submit, as the message's error description.
// The names are the `smpp` package's (link.ts statusName); a value without a name of its own
// is an SMSC's vendor-specific code and is shown in hex.
import { statusName } from "./link.js";

const MEANINGS: Record<string, string> = {
  ESME_RINVMSGLEN: "the message is too long for the SMSC",
  ESME_RINVCMDLEN: "the SMSC could not read the submit's length",
  ESME_RINVCMDID: "the SMSC does not take this command",
  ESME_RINVBNDSTS: "the connection was not bound to send",
  ESME_RSYSERR: "the SMSC had a system error",
  ESME_RINVSRCADR: "the sender ID was refused",
  ESME_RINVDSTADR: "the destination number is not valid",
  ESME_RINVSERTYP: "the service type was refused",
  ESME_RMSGQFUL: "the SMSC's queue for this number is full",
  ESME_RINVESMCLASS: "the ESM class was refused",
  ESME_RSUBMITFAIL: "the SMSC could not take the message",
  ESME_RINVSRCTON: "the sender ID's type of number was refused",
  ESME_RINVSRCNPI: "the sender ID's numbering plan was refused",
  ESME_RINVDSTTON: "the destination's type of number was refused",
  ESME_RINVDSTNPI: "the destination's numbering plan was refused",
  ESME_RTHROTTLED: "the SMSC's rate limit was exceeded",
  ESME_RINVSCHED: "the scheduled delivery time was refused",
  ESME_RINVEXPIRY: "the validity period was refused",
  ESME_RX_T_APPN: "the SMSC refused the message for now (temporary)",
  ESME_RX_P_APPN: "the SMSC refused the message (permanent)",
  ESME_RX_R_APPN: "the SMSC rejected the message",
  ESME_RINVTLVSTREAM: "the optional parameters could not be read",
  ESME_RTLVNOTALLWD: "an optional parameter (such as a DLT id) is not allowed",
  ESME_RINVTLVLEN: "an optional parameter has a wrong length",
  ESME_RMISSINGTLV: "a required optional parameter (such as a DLT id) is missing",
  ESME_RINVTLVVAL: "an optional parameter (such as a DLT id) has a value the SMSC refused",
  ESME_RDELIVERYFAILURE: "the SMSC could not deliver the message",
  ESME_RUNKNOWNERR: "the SMSC reported an unknown error",
  ESME_RSERTYPUNAUTH: "this account may not use the service type",
  ESME_RPROHIBITED: "the SMSC prohibits this message",
  ESME_RSERTYPUNAVAIL: "the service type is not available now",
  ESME_RSERTYPDENIED: "the service type was denied",
  ESME_RINVDCS: "the data coding (encoding) was refused",
};

/** `ESME_RINVDSTADR (0x0000000b): the destination number is not valid`, or the bare code. */
export function describeCommandStatus(status: number): string {
  const name = statusName(status);
  const hex = `0x${status.toString(16).padStart(8, "0")}`;
  const meaning = MEANINGS[name];
  if (name === hex) return `${hex} (a code of the SMSC's own)`;
  return meaning ? `${name} (${hex}): ${meaning}` : `${name} (${hex})`;
}
