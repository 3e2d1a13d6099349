// SMPP 3.4 PDUs on the wire: cutting a byte stream into PDUs, and writing and reading the bodies
// of the commands the client layer sends and answers. Written for this path instead of the
// `smpp` package's generic codec, which cost about 40 µs of CPU per message (a stream read and
// a Buffer.concat per PDU, every field passed through name-keyed filters, the GSM tables
// rebuilt per decode); bench/smpp-connector.mjs measures it.

export const COMMAND = {
  generic_nack: 0x80000000,
  bind_receiver: 0x00000001,
  bind_transmitter: 0x00000002,
  submit_sm: 0x00000004,
  deliver_sm: 0x00000005,
  unbind: 0x00000006,
  bind_transceiver: 0x00000009,
  enquire_link: 0x00000015,
  alert_notification: 0x00000102,
  data_sm: 0x00000103,
} as const;

export type Command = keyof typeof COMMAND;

const RESPONSE = 0x80000000;
const NAMES = new Map<number, string>(Object.entries(COMMAND).map(([name, id]) => [id, name]));

/** The largest PDU we take: a long message_payload fits; anything bigger is a broken stream. */
const MAX_PDU = 65_536;

/** The response's command id of a request (`|` would give a negative int32). */
export function responseId(commandId: number): number {
  return (commandId | RESPONSE) >>> 0;
}

export interface Pdu {
  commandId: number;
  /** The command's name (`submit_sm_resp`, ...), or its id in hex when we do not know it. */
  command: string;
  status: number;
  sequence: number;
  body: Buffer;
}

export function isResponse(pdu: Pdu): boolean {
  return pdu.commandId >= RESPONSE;
}

function commandName(id: number): string {
  const request = NAMES.get(id);
  if (request) return request;
  if (id === COMMAND.generic_nack) return "generic_nack";
  const answered = id >= RESPONSE ? NAMES.get(id - RESPONSE) : undefined;
  return answered ? `${answered}_resp` : `0x${id.toString(16).padStart(8, "0")}`;
}

/** A command_length no PDU can have: the stream cannot be followed. Its header was read whole. */
export class BrokenStream extends Error {
  constructor(
    readonly length: number,
    /** The header's sequence_number, for the generic_nack (SMPP 3.4 echoes the request's). */
    readonly sequence: number,
  ) {
    super(`an SMPP PDU of ${length} bytes: the stream is broken`);
  }
}

/**
 * Cuts the bytes read from a socket into PDUs; a chunk may hold many, or part of one. The chunks
 * of a PDU still coming are kept as they came and joined once it is whole: joined at every read,
 * a 64 KB PDU sent a byte at a time cost a copy of everything before each byte (4 s of CPU).
 */
export class PduReader {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  /** Bytes the pending PDU needs before it can be read: a header's 16, then its command_length. */
  private needed = 16;

  /** The whole PDUs read so far; throws on a length no PDU can have (the stream is broken). */
  push(chunk: Buffer): Pdu[] {
    this.pending.push(chunk);
    this.pendingLength += chunk.length;
    if (this.pendingLength < this.needed) return [];
    const buffer = this.pending.length === 1 ? chunk : Buffer.concat(this.pending, this.pendingLength);
    const pdus: Pdu[] = [];
    let offset = 0;
    this.needed = 16;
    while (buffer.length - offset >= 16) {
      const length = buffer.readUInt32BE(offset);
      if (length < 16 || length > MAX_PDU) throw new BrokenStream(length, buffer.readUInt32BE(offset + 12));
      if (buffer.length - offset < length) {
        this.needed = length;
        break;
      }
      const commandId = buffer.readUInt32BE(offset + 4);
      pdus.push({
        commandId,
        command: commandName(commandId),
        status: buffer.readUInt32BE(offset + 8),
        sequence: buffer.readUInt32BE(offset + 12),
        body: buffer.subarray(offset + 16, offset + length),
      });
      offset += length;
    }
    // A copy, so a small remainder does not hold on to a whole socket chunk.
    this.pending = offset < buffer.length ? [Buffer.from(buffer.subarray(offset))] : [];
    this.pendingLength = buffer.length - offset;
    return pdus;
  }
}

export function encodePdu(commandId: number, sequence: number, status = 0, body?: Buffer): Buffer {
  const length = 16 + (body?.length ?? 0);
  const out = Buffer.allocUnsafe(length);
  out.writeUInt32BE(length, 0);
  out.writeUInt32BE(commandId >>> 0, 4);
  out.writeUInt32BE(status >>> 0, 8);
  out.writeUInt32BE(sequence >>> 0, 12);
  body?.copy(out, 16);
  return out;
}

/** Writes a PDU body field by field into a buffer sized up front. */
export class BodyWriter {
  private offset = 0;
  readonly bytes: Buffer;

  constructor(size: number) {
    this.bytes = Buffer.allocUnsafe(size);
  }

  /**
   * A C-octet string of at most `max` bytes with its NUL. The limits are loose (SMSCs take longer
   * system_ids than the specification's 16): they only stop a value that cannot be meant.
   */
  cstring(value: string, max: number, field: string): this {
    const written = this.bytes.write(value, this.offset, "latin1");
    if (written !== value.length || written + 1 > max) {
      throw new RangeError(`SMPP ${field} "${value}" is longer than ${max - 1} characters`);
    }
    this.offset += written;
    this.bytes[this.offset++] = 0;
    return this;
  }

  u8(value: number): this {
    this.bytes[this.offset++] = value & 0xff;
    return this;
  }

  octets(value: Buffer): this {
    this.offset += value.copy(this.bytes, this.offset);
    return this;
  }

  tlvs(tlvs: Array<[tag: number, value: Buffer]>): this {
    for (const [tag, value] of tlvs) {
      if (value.length > 0xffff) throw new RangeError(`SMPP TLV 0x${tag.toString(16)} of ${value.length} bytes`);
      this.bytes.writeUInt16BE(tag, this.offset);
      this.bytes.writeUInt16BE(value.length, this.offset + 2);
      this.offset += 4;
      this.octets(value);
    }
    return this;
  }

  done(): Buffer {
    return this.bytes.subarray(0, this.offset);
  }
}

export interface BindFields {
  systemId: string;
  password: string;
  systemType: string;
  interfaceVersion: number;
}

export function bindBody(fields: BindFields): Buffer {
  return new BodyWriter(fields.systemId.length + fields.password.length + fields.systemType.length + 7)
    .cstring(fields.systemId, 66, "system_id")
    .cstring(fields.password, 66, "password")
    .cstring(fields.systemType, 66, "system_type")
    .u8(fields.interfaceVersion)
    .u8(0) // addr_ton
    .u8(0) // addr_npi
    .u8(0) // address_range ""
    .done();
}

export interface Address {
  ton: number;
  npi: number;
  addr: string;
}

export interface SubmitSmFields {
  serviceType: string;
  source: Address;
  destination: Address;
  esmClass: number;
  registeredDelivery: number;
  dataCoding: number;
  /** UDH and text, at most 254 bytes (longer text goes in parts). */
  shortMessage: Buffer;
  /** Optional parameters by tag. */
  tlvs: Array<[tag: number, value: Buffer]>;
}

export function submitSmBody(fields: SubmitSmFields): Buffer {
  if (fields.shortMessage.length > 254) {
    throw new RangeError(`SMPP short_message of ${fields.shortMessage.length} bytes (at most 254)`);
  }
  const size =
    fields.serviceType.length +
    fields.source.addr.length +
    fields.destination.addr.length +
    fields.shortMessage.length +
    fields.tlvs.reduce((sum, [, value]) => sum + 4 + value.length, 0) +
    17;
  return new BodyWriter(size)
    .cstring(fields.serviceType, 66, "service_type")
    .u8(fields.source.ton)
    .u8(fields.source.npi)
    .cstring(fields.source.addr, 66, "source_addr")
    .u8(fields.destination.ton)
    .u8(fields.destination.npi)
    .cstring(fields.destination.addr, 66, "destination_addr")
    .u8(fields.esmClass)
    .u8(0) // protocol_id
    .u8(0) // priority_flag
    .u8(0) // schedule_delivery_time ""
    .u8(0) // validity_period ""
    .u8(fields.registeredDelivery)
    .u8(0) // replace_if_present_flag
    .u8(fields.dataCoding)
    .u8(0) // sm_default_msg_id
    .u8(fields.shortMessage.length)
    .octets(fields.shortMessage)
    .tlvs(fields.tlvs)
    .done();
}

/** deliver_sm_resp and data_sm_resp carry an empty message_id. */
export const EMPTY_MESSAGE_ID = Buffer.from([0]);

/** Reads a body field by field; reading past the end gives 0 and empty strings (SMSCs truncate). */
class BodyReader {
  offset = 0;

  constructor(private readonly body: Buffer) {}

  u8(): number {
    const value = this.body[this.offset] ?? 0;
    this.offset++;
    return value;
  }

  cstring(): string {
    const end = this.body.indexOf(0, this.offset);
    const stop = end === -1 ? this.body.length : end;
    const value = this.body.toString("latin1", this.offset, stop);
    this.offset = stop + 1;
    return value;
  }

  octets(length: number): Buffer {
    const value = this.body.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  /** The optional parameters after the mandatory fields, by tag (the last of a repeated tag). */
  tlvs(): Map<number, Buffer> {
    const tlvs = new Map<number, Buffer>();
    while (this.offset + 4 <= this.body.length) {
      const tag = this.body.readUInt16BE(this.offset);
      const length = this.body.readUInt16BE(this.offset + 2);
      this.offset += 4;
      tlvs.set(tag, this.octets(length));
    }
    return tlvs;
  }
}

/** The message_id of a submit_sm_resp (empty when the SMSC refused the message). */
export function readMessageId(body: Buffer): string {
  return new BodyReader(body).cstring();
}

/** What a deliver_sm or data_sm carries (data_sm has no short_message: its text is in message_payload). */
export interface DeliverSmFields {
  source: Address;
  destination: Address;
  esmClass: number;
  dataCoding: number;
  shortMessage: Buffer;
  tlvs: Map<number, Buffer>;
}

export function readDeliverSm(pdu: Pdu): DeliverSmFields {
  const reader = new BodyReader(pdu.body);
  reader.cstring(); // service_type
  const source = { ton: reader.u8(), npi: reader.u8(), addr: reader.cstring() };
  const destination = { ton: reader.u8(), npi: reader.u8(), addr: reader.cstring() };
  const esmClass = reader.u8();
  if (pdu.commandId === COMMAND.data_sm) {
    reader.u8(); // registered_delivery
    const dataCoding = reader.u8();
    return { source, destination, esmClass, dataCoding, shortMessage: Buffer.alloc(0), tlvs: reader.tlvs() };
  }
  reader.u8(); // protocol_id
  reader.u8(); // priority_flag
  reader.cstring(); // schedule_delivery_time
  reader.cstring(); // validity_period
  reader.u8(); // registered_delivery
  reader.u8(); // replace_if_present_flag
  const dataCoding = reader.u8();
  reader.u8(); // sm_default_msg_id
  const shortMessage = reader.octets(reader.u8());
  return { source, destination, esmClass, dataCoding, shortMessage, tlvs: reader.tlvs() };
}
