// What the SMSC delivers: a deliver_sm (or data_sm) is either a delivery receipt (esm_class
// message type bits set) or an MO message, which may come in concatenated parts that are
// reassembled here before they reach the inbound sink.
import { decodeGsm7, decodeUcs2, type Pdu, readDeliverSm, TLV } from "../../../base/smpp/index.js";
import type { ReceiptFields } from "./receipt.js";

export interface InboundSmppMessage {
  /** The handset that sent it. */
  from: string;
  /** The number it was sent to (one of ours). */
  to: string;
  text: string;
  dataCoding: number;
  /** The number of concatenated parts it came in (1 for a single message). */
  parts: number;
  receivedAt: number;
}

interface Concatenation {
  reference: number;
  total: number;
  sequence: number;
}

export interface DeliverPart {
  from: string;
  to: string;
  text: string;
  dataCoding: number;
  concatenation: Concatenation | null;
}

/** The UDH of a message whose esm_class says it has one: its information elements, and the text after it. */
function splitUdh(bytes: Buffer, hasUdh: boolean): { udh: Buffer[]; text: Buffer } {
  if (!hasUdh || bytes.length === 0) return { udh: [], text: bytes };
  const end = Math.min(bytes.length, bytes[0]! + 1);
  const udh: Buffer[] = [];
  for (let at = 1; at + 1 < end; at += bytes[at + 1]! + 2) udh.push(bytes.subarray(at, at + bytes[at + 1]! + 2));
  return { udh, text: bytes.subarray(end) };
}

/** A message's text by its data_coding: UCS-2, IA5/Latin-1/binary as bytes, else the GSM default alphabet. */
function decodeMessage(bytes: Buffer, dataCoding: number): string {
  switch (dataCoding & 0x0f) {
    case 8:
      return decodeUcs2(bytes);
    case 0:
      return decodeGsm7(bytes);
    default:
      return bytes.toString("latin1");
  }
}

function concatenationOf(udh: Buffer[]): Concatenation | null {
  for (const element of udh) {
    if (element[0] === 0x00 && element[1] === 3 && element.length >= 5) {
      return { reference: element[2]!, total: element[3]!, sequence: element[4]! };
    }
    if (element[0] === 0x08 && element[1] === 4 && element.length >= 6) {
      return { reference: element.readUInt16BE(2), total: element[4]!, sequence: element[5]! };
    }
  }
  return null;
}

export function readDeliver(pdu: Pdu): { receipt: ReceiptFields | null; message: DeliverPart } {
  const fields = readDeliverSm(pdu);
  const bytes = fields.tlvs.get(TLV.message_payload) ?? fields.shortMessage;
  const { esmClass, dataCoding } = fields;
  const { udh, text } = splitUdh(bytes, (esmClass & 0x40) !== 0);
  // Bits 2–5 of esm_class: 0x04 SMSC delivery receipt, 0x08/0x10 acknowledgements, 0x20 intermediate notification.
  if ((esmClass & 0x3c) !== 0) {
    // Receipt text is ASCII whatever the data_coding says (ids may hold "_" or "@", which GSM-7 reads otherwise).
    const receiptedId = fields.tlvs.get(TLV.receipted_message_id);
    const state = fields.tlvs.get(TLV.message_state);
    const receipt: ReceiptFields = {
      text: (dataCoding & 0x0f) === 8 ? decodeUcs2(text) : text.toString("latin1"),
      receiptedMessageId: receiptedId ? receiptedId.toString("latin1").replace(/\0.*$/s, "") : undefined,
      messageState: state && state.length > 0 ? state[0] : undefined,
    };
    return {
      receipt,
      message: { from: fields.source.addr, to: fields.destination.addr, text: "", dataCoding, concatenation: null },
    };
  }
  const message: DeliverPart = {
    from: fields.source.addr,
    to: fields.destination.addr,
    text: decodeMessage(text, dataCoding),
    dataCoding,
    concatenation: esmClass & 0x40 ? concatenationOf(udh) : null,
  };
  return { receipt: null, message };
}

interface Pending {
  parts: Map<number, DeliverPart>;
  timer: NodeJS.Timeout;
}

/**
 * Holds the parts of a concatenated MO message until all have come (or `holdMs` has passed, when
 * what came is delivered with the gap). Earlier parts are acknowledged on arrival; the last one
 * once the whole message is stored.
 */
export class InboundAssembler {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly deliver: (message: InboundSmppMessage) => void | Promise<void>,
    private readonly holdMs = 5 * 60_000,
  ) {}

  async add(part: DeliverPart): Promise<void> {
    const concatenation = part.concatenation;
    if (!concatenation || concatenation.total <= 1) {
      await this.deliver({ ...this.base(part), text: part.text, parts: 1 });
      return;
    }
    const key = `${part.from}|${part.to}|${concatenation.reference}|${concatenation.total}`;
    let pending = this.pending.get(key);
    if (!pending) {
      const timer = setTimeout(() => void this.complete(key).catch(() => {}), this.holdMs);
      timer.unref();
      pending = { parts: new Map(), timer };
      this.pending.set(key, pending);
    }
    pending.parts.set(concatenation.sequence, part);
    if (pending.parts.size >= concatenation.total) await this.complete(key);
  }

  /** Delivers every incomplete message as it is (on stop). */
  flush(): void {
    for (const key of [...this.pending.keys()]) void this.complete(key).catch(() => {});
  }

  private async complete(key: string): Promise<void> {
    const pending = this.pending.get(key);
    if (!pending) return;
    this.pending.delete(key);
    clearTimeout(pending.timer);
    const parts = [...pending.parts.entries()].sort(([a], [b]) => a - b).map(([, part]) => part);
    const text = parts.map((part) => part.text).join("");
    await this.deliver({ ...this.base(parts[0]!), text, parts: parts.length });
  }

  private base(part: DeliverPart) {
    return { from: part.from, to: part.to, dataCoding: part.dataCoding, receivedAt: Date.now() };
  }
}
