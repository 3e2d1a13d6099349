// The PDU bodies an SMPP server reads (binds, submit_sm, data_sm, submit_multi, query_sm, cancel_sm) and
// writes (their responses, deliver_sm). Reading is strict, unlike the carrier side's reader: a
// client's body that ends inside a field, or whose strings miss their NUL, is malformed and
// answered with an error, never guessed at. Framing (PduReader, encodePdu) is pdu.ts's, shared
// with the client.
import { BodyWriter } from "./pdu.js";

export const SERVER_COMMAND = {
  query_sm: 0x00000003,
  cancel_sm: 0x00000008,
  submit_multi: 0x00000021,
  unbind_resp: 0x80000006,
  outbind: 0x0000000b,
} as const;

export const TLV = {
  receipted_message_id: 0x001e,
  sar_msg_ref_num: 0x020c,
  sar_total_segments: 0x020e,
  sar_segment_seqnum: 0x020f,
  message_payload: 0x0424,
  message_state: 0x0427,
} as const;

/** A body that cannot be read: `status` is the command_status the answer carries. */
export class MalformedPdu extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const ESME_RINVCMDLEN = 0x02;
const ESME_RINVTLVSTREAM = 0xc0;

class StrictReader {
  offset = 0;

  constructor(private readonly body: Buffer) {}

  u8(field: string): number {
    if (this.offset >= this.body.length) throw new MalformedPdu(ESME_RINVCMDLEN, `the body ends before ${field}`);
    return this.body[this.offset++]!;
  }

  cstring(field: string, max: number): string {
    const end = this.body.indexOf(0, this.offset);
    if (end === -1) throw new MalformedPdu(ESME_RINVCMDLEN, `${field} has no terminating NUL`);
    if (end - this.offset > max - 1) throw new MalformedPdu(ESME_RINVCMDLEN, `${field} is longer than ${max - 1}`);
    const value = this.body.toString("latin1", this.offset, end);
    this.offset = end + 1;
    return value;
  }

  octets(length: number, field: string): Buffer {
    if (this.offset + length > this.body.length) throw new MalformedPdu(ESME_RINVCMDLEN, `${field} is cut short`);
    const value = this.body.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  tlvs(): Tlvs {
    const tlvs = new Tlvs();
    while (this.offset < this.body.length) {
      if (this.offset + 4 > this.body.length) throw new MalformedPdu(ESME_RINVTLVSTREAM, "a TLV header is cut short");
      const tag = this.body.readUInt16BE(this.offset);
      const length = this.body.readUInt16BE(this.offset + 2);
      this.offset += 4;
      if (this.offset + length > this.body.length) {
        throw new MalformedPdu(ESME_RINVTLVSTREAM, `TLV 0x${tag.toString(16)} is longer than the body`);
      }
      if (tlvs.has(tag)) tlvs.repeated.add(tag);
      tlvs.set(tag, this.body.subarray(this.offset, this.offset + length));
      this.offset += length;
    }
    return tlvs;
  }
}

/** A body's TLVs by tag, the last value of each; `repeated` names the tags that came more than once. */
export class Tlvs extends Map<number, Buffer> {
  readonly repeated = new Set<number>();
}

export interface BindRequest {
  systemId: string;
  password: string;
  systemType: string;
  interfaceVersion: number;
}

export function readBind(body: Buffer): BindRequest {
  const reader = new StrictReader(body);
  // Looser than SMPP 3.4's 16 and 9: a longer username or password is a wrong one, not a broken PDU.
  const systemId = reader.cstring("system_id", 66);
  const password = reader.cstring("password", 66);
  const systemType = reader.cstring("system_type", 66);
  const interfaceVersion = reader.u8("interface_version");
  reader.u8("addr_ton");
  reader.u8("addr_npi");
  reader.cstring("address_range", 41);
  return { systemId, password, systemType, interfaceVersion };
}

/** An address's TON and NPI (read, not kept) and the address: up to 21 octets, 65 in data_sm. */
function address(reader: StrictReader, which: "source" | "destination", octets = 21): string {
  const prefix = which === "source" ? "source_addr" : "dest_addr";
  reader.u8(`${prefix}_ton`);
  reader.u8(`${prefix}_npi`);
  return reader.cstring(`${which}_addr`, octets);
}

/** What every submit carries, whichever command it came in. */
export interface SubmitFields {
  serviceType: string;
  source: string;
  destinations: string[];
  esmClass: number;
  registeredDelivery: number;
  dataCoding: number;
  scheduleDeliveryTime: string;
  shortMessage: Buffer;
  tlvs: Tlvs;
}

export function readSubmitSm(body: Buffer): SubmitFields {
  const reader = new StrictReader(body);
  const serviceType = reader.cstring("service_type", 6);
  const source = address(reader, "source");
  const destination = address(reader, "destination");
  return { serviceType, source, destinations: [destination], ...readMessageFields(reader) };
}

export function readSubmitMulti(body: Buffer): SubmitFields {
  const reader = new StrictReader(body);
  const serviceType = reader.cstring("service_type", 6);
  const source = address(reader, "source");
  const count = reader.u8("number_of_dests");
  const destinations: string[] = [];
  for (let i = 0; i < count; i++) {
    const flag = reader.u8("dest_flag");
    if (flag === 1) {
      destinations.push(address(reader, "destination"));
    } else if (flag === 2) {
      // A distribution list is the SMSC's; Switchboard keeps none, so the name is a refused destination.
      destinations.push(`dl:${reader.cstring("dl_name", 21)}`);
    } else {
      throw new MalformedPdu(0x40, `dest_flag ${flag} is neither 1 (address) nor 2 (distribution list)`);
    }
  }
  return { serviceType, source, destinations, ...readMessageFields(reader) };
}

function readMessageFields(reader: StrictReader) {
  const esmClass = reader.u8("esm_class");
  reader.u8("protocol_id");
  reader.u8("priority_flag");
  const scheduleDeliveryTime = reader.cstring("schedule_delivery_time", 17);
  reader.cstring("validity_period", 17);
  const registeredDelivery = reader.u8("registered_delivery");
  reader.u8("replace_if_present_flag");
  const dataCoding = reader.u8("data_coding");
  reader.u8("sm_default_msg_id");
  const length = reader.u8("sm_length");
  const shortMessage = reader.octets(length, "short_message");
  const tlvs = reader.tlvs();
  return { esmClass, registeredDelivery, dataCoding, scheduleDeliveryTime, shortMessage, tlvs };
}

export function readDataSm(body: Buffer): SubmitFields {
  const reader = new StrictReader(body);
  const serviceType = reader.cstring("service_type", 6);
  const source = address(reader, "source", 65);
  const destination = address(reader, "destination", 65);
  const esmClass = reader.u8("esm_class");
  const registeredDelivery = reader.u8("registered_delivery");
  const dataCoding = reader.u8("data_coding");
  const tlvs = reader.tlvs();
  return {
    serviceType,
    source,
    destinations: [destination],
    esmClass,
    registeredDelivery,
    dataCoding,
    scheduleDeliveryTime: "",
    shortMessage: Buffer.alloc(0),
    tlvs,
  };
}

/** query_sm (SMPP 3.4, 4.8.1): the id the SMSC gave and the submit's source address. */
export interface QuerySm {
  messageId: string;
  sourceTon: number;
  sourceNpi: number;
  source: string;
}

export function readQuerySm(body: Buffer): QuerySm {
  const reader = new StrictReader(body);
  const messageId = reader.cstring("message_id", 65);
  const sourceTon = reader.u8("source_addr_ton");
  const sourceNpi = reader.u8("source_addr_npi");
  const source = reader.cstring("source_addr", 21);
  return { messageId, sourceTon, sourceNpi, source };
}

/** cancel_sm (SMPP 3.4, 4.9.1): one message by its id, or the source's pending messages to a destination. */
export interface CancelSm {
  serviceType: string;
  messageId: string;
  source: string;
  destination: string;
}

export function readCancelSm(body: Buffer): CancelSm {
  const reader = new StrictReader(body);
  const serviceType = reader.cstring("service_type", 6);
  const messageId = reader.cstring("message_id", 65);
  const source = address(reader, "source");
  const destination = address(reader, "destination");
  return { serviceType, messageId, source, destination };
}

/** SMPP 3.4's absolute time (7.1.1), `YYMMDDhhmmsstnnp`, in UTC: tenths of a second, offset 00, `+`. */
export function absoluteTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  const date = `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}`;
  const time = `${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}`;
  return `${date}${time}${Math.floor(d.getUTCMilliseconds() / 100)}00+`;
}

/** query_sm_resp (4.8.2): `finalDate` the absolute time of the final state, empty while not final. */
export function querySmRespBody(fields: {
  messageId: string;
  finalDate: string;
  messageState: number;
  errorCode: number;
}): Buffer {
  return new BodyWriter(fields.messageId.length + fields.finalDate.length + 4)
    .cstring(fields.messageId, 65, "message_id")
    .cstring(fields.finalDate, 17, "final_date")
    .u8(fields.messageState)
    .u8(fields.errorCode)
    .done();
}

/** A response body that is a message_id alone (bind_*_resp carries the system_id the same way). */
export function cstringBody(value: string): Buffer {
  return new BodyWriter(value.length + 1).cstring(value, 66, "message_id").done();
}

export interface UnsuccessfulDestination {
  address: string;
  status: number;
}

export function submitMultiRespBody(messageId: string, failed: UnsuccessfulDestination[]): Buffer {
  const size = messageId.length + 2 + failed.reduce((sum, f) => sum + f.address.length + 7, 0);
  const writer = new BodyWriter(size).cstring(messageId, 66, "message_id").u8(failed.length);
  for (const item of failed) {
    const status = Buffer.allocUnsafe(4);
    status.writeUInt32BE(item.status >>> 0);
    writer.u8(1).u8(1).cstring(item.address, 66, "destination_addr").octets(status);
  }
  return writer.done();
}

export interface DeliverSm {
  source: string;
  destination: string;
  esmClass: number;
  dataCoding: number;
  /** At most 254 bytes; longer text goes in message_payload. */
  message: Buffer;
  tlvs: Array<[tag: number, value: Buffer]>;
}

/** SMPP 3.4 (5.2.8, 5.2.9): a deliver_sm's addresses are C-Octet Strings of at most 21 octets, NUL included. */
const MAX_ADDRESS = 20;

/** deliver_sm: an MO message or a delivery receipt (esm_class 0x04). */
export function deliverSmBody(fields: DeliverSm): Buffer {
  const inPayload = fields.message.length > 254;
  const tlvs: Array<[number, Buffer]> = inPayload
    ? [...fields.tlvs, [TLV.message_payload, fields.message]]
    : fields.tlvs;
  const shortMessage = inPayload ? Buffer.alloc(0) : fields.message;
  // Longer addresses (none a handset or sender ID has) are cut rather than break the client's parser.
  const source = fields.source.slice(0, MAX_ADDRESS);
  const destination = fields.destination.slice(0, MAX_ADDRESS);
  const size =
    source.length +
    destination.length +
    shortMessage.length +
    tlvs.reduce((sum, [, value]) => sum + 4 + value.length, 0) +
    17;
  const international = (addr: string) => (/^\d{11,15}$/.test(addr) ? 1 : /^\d+$/.test(addr) ? 0 : 5);
  return new BodyWriter(size)
    .cstring("", 6, "service_type")
    .u8(international(source))
    .u8(/^\d+$/.test(source) ? 1 : 0)
    .cstring(source, MAX_ADDRESS + 1, "source_addr")
    .u8(international(destination))
    .u8(/^\d+$/.test(destination) ? 1 : 0)
    .cstring(destination, MAX_ADDRESS + 1, "destination_addr")
    .u8(fields.esmClass)
    .u8(0) // protocol_id
    .u8(0) // priority_flag
    .u8(0) // schedule_delivery_time
    .u8(0) // validity_period
    .u8(0) // registered_delivery
    .u8(0) // replace_if_present_flag
    .u8(fields.dataCoding)
    .u8(0) // sm_default_msg_id
    .u8(shortMessage.length)
    .octets(shortMessage)
    .tlvs(tlvs)
    .done();
}
