// A client's submit_sm, data_sm or submit_multi, turned into an SmsSendInput and accepted through
// the same SmsPolicy and Acceptor as every HTTP family. Only the SMPP encoding is decided here:
// the text from short_message or message_payload by data_coding, the parts of a long message
// (UDH concatenation or SAR TLVs) joined into one message with one id, the route from
// service_type, the DLT ids from their TLVs.
import { RateLimiterMemory } from "rate-limiter-flexible";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { newQueueId } from "../../base/core/ids.js";
import { isGsm7 } from "../../base/core/segments.js";
import type { Config } from "../../base/runtime/config.js";
import {
  decodeGsm7Strict,
  decodeUcs2,
  type SubmitFields,
  TLV,
  type UnsuccessfulDestination,
} from "../../base/smpp/index.js";
import type { Principal } from "../../domain/auth/index.js";
import type { AcceptService } from "../../domain/messages/index.js";
import { type LeftOutRecipient, leftOutOf } from "../../domain/refusals/index.js";
import { type SmsPolicy, type SmsSendInput, withoutRepeats } from "../sms/index.js";
import { type DroppedMessage, type DropReason, HeldParts, type HeldPartsLimits } from "./held-parts.js";
import type { SmppMeta } from "./outbox.js";
import { STATUS, smppStatusText, statusOfRefusal } from "./status.js";

export interface SubmitterDeps {
  smsPolicy: SmsPolicy;
  acceptor: AcceptService;
  dltEntityTag: number;
  dltTemplateTag: number;
  /** The tag of the telemarketer chain a client may send (checked against the entity's declared one). */
  dltTmChainTag: number;
  heldParts: HeldPartsLimits;
  /** The runtime clock's now, in ms. */
  now: () => number;
  /**
   * Parts answered ESME_ROK whose message will never exist: refused once its last part came
   * (`status`, the last part's command_status), or dropped before (`reason`). Each part that
   * asked for a receipt is owed a failed one.
   */
  abandoned: (message: DroppedMessage, why: { status: number } | { reason: DropReason }) => void;
}

/** The bound account, as the bind found it. */
export interface BoundAccount {
  principal: Principal;
  /** The system_id the bind logged in with, as sent (the log of refusals names the login by it). */
  systemId: string;
  /** The route of a submit whose service_type is empty: the account's first (T, P, PS, I order). */
  defaultRoute: string;
  submitsPerSecond: number;
}

/** The bind a submit came over: its parts are joined with that bind's parts only. */
export interface SubmittingBind {
  id: string;
  account: BoundAccount | undefined;
}

export type SubmitResult =
  | { status: 0; messageId: string; failed?: UnsuccessfulDestination[]; leftOut?: LeftOutRecipient[] }
  | {
      status: number;
      messageId: "";
      reason: string;
      code?: string;
      /** An account above the bound one was short: for the log of refusals only (decision 0158). */
      upline?: { reason: string; level: number };
    };

interface Concatenation {
  reference: number;
  total: number;
  sequence: number;
}

/** Refused before the rules: a status of the SMPP layer itself. */
class SmppRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function refuse(status: number, reason: string): SubmitResult {
  return { status, messageId: "", reason };
}

function cstringTlv(value: Buffer | undefined): string | undefined {
  if (!value) return undefined;
  const text = value.toString("latin1").replace(/\0+$/, "");
  return text === "" ? undefined : text;
}

/**
 * The telemarketer chain a client sent: undefined without the TLV, "" for an empty one (an
 * invalid chain, not "no chain"). Sent twice, the carrier and the gateway could each read another
 * one: refused (dlt_chain_mismatch, 0x40D).
 */
function chainTlv(tlvs: SubmitFields["tlvs"], tag: number): string | undefined {
  if (tlvs.repeated.has(tag)) {
    throw new GatewayError(
      "dlt_chain_mismatch",
      `The telemarketer chain TLV 0x${tag.toString(16)} came more than once: send the chain once.`,
    );
  }
  const value = tlvs.get(tag);
  return value?.toString("latin1").replace(/\0+$/, "");
}

/** The text of a message by its data_coding: 0 GSM 03.38 (unpacked septets), 1 IA5 (ASCII), 3 Latin-1, 8 UCS-2. */
export function decodeSubmitText(bytes: Buffer, dataCoding: number): string {
  switch (dataCoding) {
    case 0:
      // Unpacked GSM 03.38 septets (`@` is 0x00): a byte above 0x7F or an unknown escape is
      // refused, not read as another letter (audit ch M2). Latin-1 or ASCII text goes as 3 or 1.
      try {
        return decodeGsm7Strict(bytes);
      } catch (error) {
        throw new SmppRefusal(
          STATUS.ESME_RINVDCS,
          `data_coding 0 is GSM 03.38 septets: ${(error as Error).message}; send Latin-1 as data_coding 3`,
        );
      }
    case 1:
    case 3:
      return bytes.toString("latin1");
    case 8:
      if (bytes.length % 2 !== 0) throw new SmppRefusal(STATUS.ESME_RINVMSGLEN, "UCS-2 text of an odd length");
      return decodeUcs2(bytes);
    default:
      throw new SmppRefusal(
        STATUS.ESME_RINVDCS,
        `data_coding ${dataCoding} is not taken: use 0 (GSM 03.38), 1 (ASCII), 3 (Latin-1) or 8 (UCS-2)`,
      );
  }
}

/** The UDH's concatenation element (8- or 16-bit reference) and the text after the UDH. */
function splitUdh(bytes: Buffer): { concatenation: Concatenation | null; text: Buffer } {
  if (bytes.length === 0 || bytes[0]! + 1 > bytes.length) {
    throw new SmppRefusal(STATUS.ESME_RINVESMCLASS, "esm_class says the message has a UDH, but it has none");
  }
  const end = bytes[0]! + 1;
  let concatenation: Concatenation | null = null;
  for (let at = 1; at + 1 < end; at += bytes[at + 1]! + 2) {
    const iei = bytes[at]!;
    const length = bytes[at + 1]!;
    if (at + 2 + length > end) break;
    if (iei === 0x00 && length === 3) {
      concatenation = { reference: bytes[at + 2]!, total: bytes[at + 3]!, sequence: bytes[at + 4]! };
    } else if (iei === 0x08 && length === 4) {
      concatenation = { reference: bytes.readUInt16BE(at + 2), total: bytes[at + 4]!, sequence: bytes[at + 5]! };
    }
  }
  return { concatenation, text: bytes.subarray(end) };
}

function sarOf(tlvs: Map<number, Buffer>): Concatenation | null {
  const ref = tlvs.get(TLV.sar_msg_ref_num);
  const total = tlvs.get(TLV.sar_total_segments);
  const seq = tlvs.get(TLV.sar_segment_seqnum);
  if (!ref && !total && !seq) return null;
  if (ref?.length !== 2 || total?.length !== 1 || seq?.length !== 1) {
    throw new SmppRefusal(STATUS.ESME_RINVTLVVAL, "the SAR TLVs need all three: sar_msg_ref_num, total and seqnum");
  }
  return { reference: ref.readUInt16BE(0), total: total[0]!, sequence: seq[0]! };
}

/** The server's Submitter, with its settings from the config. */
export function submitterOf(
  deps: { smsPolicy: SmsPolicy; acceptor: AcceptService; config: Config; clock: Clock },
  abandoned: SubmitterDeps["abandoned"],
): Submitter {
  const settings = deps.config.smppServer;
  return new Submitter({
    smsPolicy: deps.smsPolicy,
    acceptor: deps.acceptor,
    dltEntityTag: settings.dltEntityTag,
    dltTemplateTag: settings.dltTemplateTag,
    dltTmChainTag: settings.dltTmChainTag,
    heldParts: {
      bytesPerAccount: settings.heldBytesPerAccount,
      messagesPerAccount: settings.heldMessagesPerAccount,
      bytesTotal: settings.heldBytesTotal,
    },
    now: () => deps.clock.now().getTime(),
    abandoned,
  });
}

export class Submitter {
  private readonly held: HeldParts;
  private readonly limiters = new Map<string, RateLimiterMemory>();

  constructor(private readonly deps: SubmitterDeps) {
    this.held = new HeldParts(deps.heldParts, newQueueId, deps.now, (message, reason) =>
      deps.abandoned(message, { reason }),
    );
  }

  close(): void {
    this.held.close();
  }

  /** Whether the account's parts answered with `id` wait here for the rest of their message. */
  holds(accountId: number, id: string): boolean {
    return this.held.holds(accountId, id);
  }

  /** The bind closed: the parts it sent can no longer be joined. */
  release(bindId: string): void {
    this.held.release(bindId);
  }

  /** Over the account's submits per second: answered ESME_RTHROTTLED, nothing else done. */
  private async throttled(account: BoundAccount): Promise<boolean> {
    if (account.submitsPerSecond === 0) return false;
    const key = `${account.principal.accountId}:${account.submitsPerSecond}`;
    let limiter = this.limiters.get(key);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points: account.submitsPerSecond, duration: 1 });
      this.limiters.set(key, limiter);
    }
    try {
      await limiter.consume(String(account.principal.accountId));
      return false;
    } catch {
      return true;
    }
  }

  async submit(bind: SubmittingBind, fields: SubmitFields, multi: boolean): Promise<SubmitResult> {
    const account = bind.account!;
    if (await this.throttled(account)) {
      return refuse(STATUS.ESME_RTHROTTLED, "over the account's submits per second");
    }
    const joined: { earlier?: DroppedMessage } = {};
    try {
      return await this.accept(bind.id, account, fields, multi, joined);
    } catch (error) {
      const result: SubmitResult | undefined =
        error instanceof SmppRefusal
          ? refuse(error.status, error.message)
          : error instanceof GatewayError
            ? {
                status: statusOfRefusal(error.code),
                messageId: "",
                reason: error.message,
                code: error.code,
                ...(error.upline ? { upline: error.upline } : {}),
              }
            : undefined;
      // The whole message refused on its last part: the parts answered before it are owed their receipts.
      if (joined.earlier) this.deps.abandoned(joined.earlier, { status: result?.status ?? STATUS.ESME_RSYSERR });
      if (result) return result;
      throw error;
    }
  }

  private async accept(
    bindId: string,
    account: BoundAccount,
    fields: SubmitFields,
    multi: boolean,
    joinedOut: { earlier?: DroppedMessage },
  ): Promise<SubmitResult> {
    if ((fields.esmClass & 0x3c) !== 0) {
      throw new SmppRefusal(STATUS.ESME_RINVESMCLASS, "esm_class marks a receipt or acknowledgement, not a message");
    }
    if (fields.scheduleDeliveryTime !== "") {
      throw new SmppRefusal(STATUS.ESME_RINVSCHED, "scheduled delivery is not taken over SMPP");
    }
    const payload = fields.tlvs.get(TLV.message_payload);
    if (payload && fields.shortMessage.length > 0) {
      throw new SmppRefusal(STATUS.ESME_RINVTLVVAL, "both short_message and message_payload carry text");
    }
    let bytes = payload ?? fields.shortMessage;
    let concatenation = sarOf(fields.tlvs);
    if ((fields.esmClass & 0x40) !== 0) {
      const split = splitUdh(bytes);
      bytes = split.text;
      concatenation = split.concatenation ?? concatenation;
    }
    let text = decodeSubmitText(bytes, fields.dataCoding);
    let id: string | undefined;
    const registeredDelivery = fields.registeredDelivery & 0x03;
    /** A long message: the registered_delivery of each of its parts that asked for a receipt. */
    let receipts: number[] | undefined;
    if (concatenation && concatenation.total > 1) {
      if (multi) throw new SmppRefusal(STATUS.ESME_RINVESMCLASS, "submit_multi takes whole messages, not parts");
      const { total, sequence } = concatenation;
      if (sequence < 1 || sequence > total) {
        throw new SmppRefusal(STATUS.ESME_RINVTLVVAL, `part ${sequence} of a message of ${total} parts`);
      }
      // Per bind, as SMPP clients number their references: two clients of one account (or one
      // client's two binds) reusing a reference for the same addresses are two messages.
      const key = [bindId, fields.source, fields.destinations[0], concatenation.reference, total].join("|");
      const joined = this.held.hold({
        key,
        bindId,
        accountId: account.principal.accountId,
        sequence,
        total,
        text,
        source: fields.source,
        destination: fields.destinations[0] ?? "",
        receipt: registeredDelivery,
      });
      if (joined.kind === "over_account") {
        throw new SmppRefusal(STATUS.ESME_RTHROTTLED, "the account holds as many parts of long messages as it may");
      }
      if (joined.kind === "over_total") {
        throw new SmppRefusal(STATUS.ESME_RMSGQFUL, "the server holds as many parts of long messages as it may");
      }
      // An earlier part is taken under the id the whole message will have.
      if (joined.kind === "held") return { status: 0, messageId: joined.id };
      joinedOut.earlier = joined.earlier;
      text = joined.text;
      id = joined.id;
      receipts = joined.receipts;
    }
    // UCS-2 keeps each code unit, so that a pair cut between two parts is joined again; the
    // whole text must then be well-formed. Half a pair alone has no UTF-8 form: each engine would
    // store it mangled its own way, and v2 refuses it (400 invalid_request). Before the rules:
    // nothing is charged.
    if (!text.isWellFormed()) {
      throw new SmppRefusal(
        STATUS.ESME_RINVDCS,
        "the UCS-2 text is not valid Unicode: a code unit 0xD800 to 0xDFFF stands without its other half of a surrogate pair",
      );
    }
    const input: SmsSendInput = {
      senderId: fields.source,
      recipients: fields.destinations,
      message: text,
      route: fields.serviceType.trim() === "" ? account.defaultRoute : fields.serviceType,
      // UCS-2 as asked, and Latin-1 or ASCII text that GSM 03.38 cannot carry goes as UCS-2 too.
      unicode: fields.dataCoding === 8 || (fields.dataCoding !== 0 && !isGsm7(text)),
      dltEntityId: cstringTlv(fields.tlvs.get(this.deps.dltEntityTag)),
      dltTemplateId: cstringTlv(fields.tlvs.get(this.deps.dltTemplateTag)),
      dltTmChain: chainTlv(fields.tlvs, this.deps.dltTmChainTag),
    };
    const decided = await this.deps.smsPolicy.decide(account.principal, input);
    const { order } = decided;
    // submit_multi: a destination given twice (in any of its forms) is sent and charged once.
    const { kept, repeats } = withoutRepeats(order.drafts);
    order.drafts = kept;
    const rejected = [...decided.rejected, ...repeats];
    for (const draft of order.drafts) {
      if (id !== undefined) draft.id = id;
      // A client counts one receipt per submit_sm_resp: a message sent in parts gets one per part
      // that asked for one (each part's own registered_delivery, a part sent twice counted once).
      const smpp: SmppMeta["smpp"] | undefined = receipts
        ? receipts.length === 0
          ? undefined
          : { registered_delivery: receipts.includes(1) ? 1 : 2, receipts }
        : registeredDelivery === 0
          ? undefined
          : { registered_delivery: registeredDelivery };
      // submit_multi: the receipts name the id of submit_multi_resp, the broadcast id.
      if (smpp && multi) smpp.multi = true;
      if (smpp) draft.meta = { smpp };
    }
    const outcome = await this.deps.acceptor.accept(order);
    if (outcome.kind !== "accepted") throw new GatewayError("internal_error");
    if (!multi) return { status: 0, messageId: outcome.send.messages[0]!.id };
    const failed = rejected.map(({ recipient, error }) => ({
      address: recipient,
      status: statusOfRefusal(error.code),
    }));
    return {
      status: 0,
      messageId: outcome.send.broadcastId,
      failed,
      ...(rejected.length === 0
        ? {}
        : { leftOut: leftOutOf(rejected, (error) => smppStatusText(statusOfRefusal(error.code))) }),
    };
  }
}
