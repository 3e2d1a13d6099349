// What a refused submit answers: every refusal of the SMS rules and the acceptor (the error
// codes every family shares, core/errors.ts) as an SMPP command_status. A standard SMPP 3.4
// status where one says it; otherwise one of Switchboard's in the range SMPP 3.4 leaves to the
// SMSC (0x400–0x4FF), so a client can still tell every refusal apart. docs/smpp-server.md
// prints this table; a test checks that every code it lists is answered as listed.
import type { ErrorCode } from "../../base/core/errors.js";

export const STATUS = {
  ESME_ROK: 0x00,
  ESME_RINVMSGLEN: 0x01,
  ESME_RINVCMDLEN: 0x02,
  ESME_RINVCMDID: 0x03,
  ESME_RINVBNDSTS: 0x04,
  ESME_RALYBND: 0x05,
  ESME_RSYSERR: 0x08,
  ESME_RINVSRCADR: 0x0a,
  ESME_RINVDSTADR: 0x0b,
  ESME_RINVMSGID: 0x0c,
  ESME_RBINDFAIL: 0x0d,
  ESME_RINVPASWD: 0x0e,
  ESME_RCANCELFAIL: 0x11,
  ESME_RMSGQFUL: 0x14,
  ESME_RINVSERTYP: 0x15,
  ESME_RINVNUMDESTS: 0x33,
  ESME_RINVESMCLASS: 0x43,
  ESME_RSUBMITFAIL: 0x45,
  ESME_RTHROTTLED: 0x58,
  ESME_RINVSCHED: 0x61,
  ESME_RQUERYFAIL: 0x67,
  ESME_RINVTLVVAL: 0xc4,
  ESME_RSERTYPUNAUTH: 0x100,
  ESME_RPROHIBITED: 0x101,
  ESME_RINVDCS: 0x104,
  /** Switchboard's own (SMSC-specific range). */
  SB_DND: 0x401,
  SB_OPTED_OUT: 0x402,
  SB_NO_CREDITS: 0x403,
  SB_FLOOD_LIMIT: 0x404,
  SB_DLT_ENTITY: 0x405,
  SB_DLT_HEADER: 0x406,
  SB_DLT_TEMPLATE: 0x407,
  SB_CONTENT: 0x408,
  SB_DLT_URL: 0x40a,
  SB_DLT_CALLBACK: 0x40b,
  SB_DLT_CHAIN: 0x40c,
  SB_DLT_CHAIN_MISMATCH: 0x40d,
} as const;

/** Refusal code → command_status. A code not listed answers ESME_RSYSERR. */
export const REFUSALS: ReadonlyMap<ErrorCode, number> = new Map<ErrorCode, number>([
  ["account_inactive", STATUS.ESME_RPROHIBITED],
  ["missing_sender_id", STATUS.ESME_RINVSRCADR],
  ["invalid_sender_id", STATUS.ESME_RINVSRCADR],
  ["route_sender_mismatch", STATUS.ESME_RINVSRCADR],
  ["invalid_recipient", STATUS.ESME_RINVDSTADR],
  ["duplicate_recipient", STATUS.ESME_RINVDSTADR],
  ["missing_message", STATUS.ESME_RINVMSGLEN],
  ["message_too_long", STATUS.ESME_RINVMSGLEN],
  ["unicode_not_allowed", STATUS.ESME_RINVDCS],
  ["invalid_route", STATUS.ESME_RINVSERTYP],
  ["route_not_approved", STATUS.ESME_RSERTYPUNAUTH],
  ["international_disabled", STATUS.ESME_RSERTYPUNAUTH],
  ["promo_sender_disabled", STATUS.ESME_RSERTYPUNAUTH],
  ["invalid_schedule", STATUS.ESME_RINVSCHED],
  ["invalid_request", STATUS.ESME_RINVTLVVAL],
  ["rate_limited", STATUS.ESME_RTHROTTLED],
  ["dnd_blocked", STATUS.SB_DND],
  ["recipient_opted_out", STATUS.SB_OPTED_OUT],
  ["insufficient_credits", STATUS.SB_NO_CREDITS],
  ["insufficient_international_credits", STATUS.SB_NO_CREDITS],
  ["flood_limit_exceeded", STATUS.SB_FLOOD_LIMIT],
  ["dlt_entity_not_whitelisted", STATUS.SB_DLT_ENTITY],
  ["dlt_header_not_whitelisted", STATUS.SB_DLT_HEADER],
  ["dlt_template_mismatch", STATUS.SB_DLT_TEMPLATE],
  ["content_not_allowed", STATUS.SB_CONTENT],
  ["dlt_url_not_whitelisted", STATUS.SB_DLT_URL],
  ["dlt_callback_not_whitelisted", STATUS.SB_DLT_CALLBACK],
  ["dlt_chain_missing", STATUS.SB_DLT_CHAIN],
  ["dlt_chain_mismatch", STATUS.SB_DLT_CHAIN_MISMATCH],
]);

export function statusOfRefusal(code: ErrorCode): number {
  return REFUSALS.get(code) ?? STATUS.ESME_RSYSERR;
}

const NAMES = new Map<number, string>(Object.entries(STATUS).map(([name, status]) => [status, name]));

/** A command_status as the log of refusals writes it: eight hex digits and its name (`0x00000407 SB_DLT_TEMPLATE`). */
export function smppStatusText(status: number): string {
  return `0x${status.toString(16).toUpperCase().padStart(8, "0")} ${NAMES.get(status) ?? "ESME_RUNKNOWNERR"}`;
}
