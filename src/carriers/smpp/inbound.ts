// What the SMSC delivers: a deliver_sm (or data_sm) is either a delivery receipt (esm_class
// message type bits set) or an MO message, which may come in concatenated parts that are
// reassembled here before they reach the inbound sink.
import type { Pdu } from "smpp";
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

/** The library decodes short_message / message_payload to `{ message, udh }` (udh: its information elements). */
function decoded(value: unknown): { text: string; udh: Buffer[] } {
  if (typeof value === "string") return { text: value, udh: [] };
  if (Buffer.isBuffer(value)) return { text: value.toString("latin1"), udh: [] };
  if (value && typeof value === "object" && "message" in value) {
    const { message, udh } = value as { message: unknown; udh?: Buffer[] };
    return { text: Buffer.isBuffer(message) ? message.toString("latin1") : String(message ?? ""), udh: udh ?? [] };
  }
  return { text: "", udh: [] };
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
  const body = decoded(pdu.message_payload ?? pdu.short_message);
  const esmClass = Number(pdu.esm_class ?? 0);
  const message: DeliverPart = {
    from: String(pdu.source_addr ?? ""),
    to: String(pdu.destination_addr ?? ""),
    text: body.text,
    dataCoding: Number(pdu.data_coding ?? 0),
    concatenation: esmClass & 0x40 ? concatenationOf(body.udh) : null,
  };
  // Bits 2–5 of esm_class: 0x04 SMSC delivery receipt, 0x08/0x10 acknowledgements, 0x20 intermediate notification.
  if ((esmClass & 0x3c) === 0) return { receipt: null, message };
  const receipt: ReceiptFields = {
    text: body.text,
    receiptedMessageId: typeof pdu.receipted_message_id === "string" ? pdu.receipted_message_id : undefined,
    messageState: typeof pdu.message_state === "number" ? pdu.message_state : undefined,
  };
  return { receipt, message };
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
