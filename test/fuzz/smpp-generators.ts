// The SMPP fuzz file's generators: PDUs an ESME sends (valid, then mutated: bytes flipped, cut,
// grown, command_length lied about), PDUs of random commands and bodies, and a byte stream's
// framing as the server will read it, so a case knows which answers to wait for.
import fc from "fast-check";
import { encodePdu } from "../../src/base/smpp/index.js";
import { cstrings, submitBody, tlv } from "../channels/smpp-server/raw-client.js";

/** The largest PDU the server takes (carriers/smpp/pdu.ts). */
export const MAX_PDU = 65_536;
export const UNBIND = 0x00000006;

const SENDER = "SWBRD";
const RECIPIENT = "9876543210";

/** Bodies of the requests an ESME sends, valid as they are (a bind of an account that does not exist). */
function validRequests(): fc.Arbitrary<{ commandId: number; body: Buffer }> {
  const text = fc.string({ maxLength: 160 }).map((s) => s.replace(/[^\x20-\x7e]/g, "?"));
  const sar = fc.tuple(
    fc.integer({ min: 0, max: 0xffff }),
    fc.integer({ min: 1, max: 4 }),
    fc.integer({ min: 1, max: 4 }),
  );
  return fc.oneof(
    fc.constant({ commandId: 0x15, body: Buffer.alloc(0) }),
    fc.constant({
      commandId: 0x09,
      body: Buffer.concat([cstrings("fuzz-nobody", "wrongpw", ""), Buffer.from([0x34, 0, 0, 0])]),
    }),
    text.map((t) => ({ commandId: 0x04, body: submitBody(SENDER, RECIPIENT, t) })),
    fc.tuple(text, sar).map(([t, [reference, total, sequence]]) => ({
      commandId: 0x04,
      body: Buffer.concat([
        submitBody(SENDER, RECIPIENT, "", 0, 1),
        tlv(0x020c, Buffer.from([reference >> 8, reference & 0xff])),
        tlv(0x020e, Buffer.from([total])),
        tlv(0x020f, Buffer.from([Math.min(sequence, total)])),
        tlv(0x0424, Buffer.from(t, "latin1")),
      ]),
    })),
    fc.tuple(text, fc.integer({ min: 0, max: 255 })).map(([t, reference]) => {
      // esm_class 0x40: a UDH with an 8-bit concatenation reference, part 1 of 2.
      const body = submitBody(SENDER, RECIPIENT, `\x05\x00\x03${String.fromCharCode(reference)}\x02\x01${t}`);
      body[body.indexOf(RECIPIENT) + RECIPIENT.length + 1] = 0x40;
      return { commandId: 0x04, body };
    }),
    text.map((t) => ({
      commandId: 0x103,
      body: Buffer.concat([
        cstrings(""),
        Buffer.from([1, 1]),
        cstrings(SENDER),
        Buffer.from([1, 1]),
        cstrings(RECIPIENT),
        Buffer.from([0, 0, 1]),
        tlv(0x0424, Buffer.from(t, "latin1")),
      ]),
    })),
    text.map((t) => ({
      commandId: 0x21,
      body: Buffer.concat([
        cstrings(""),
        Buffer.from([1, 1]),
        cstrings(SENDER),
        Buffer.from([2, 1, 1, 1]),
        cstrings(RECIPIENT),
        Buffer.from([1, 1, 1]),
        cstrings("9876543211"),
        Buffer.from([0, 0, 0]),
        cstrings("", ""),
        Buffer.from([0, 0, 0, 0, t.length]),
        Buffer.from(t, "latin1"),
      ]),
    })),
  );
}

type Mutation =
  | { kind: "flip"; at: number; value: number }
  | { kind: "cut"; at: number }
  | { kind: "grow"; bytes: Uint8Array }
  | { kind: "length"; length: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("grow" as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }) }),
  fc.record({
    kind: fc.constant("length" as const),
    length: fc.oneof(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 16, max: 400 }), fc.constant(MAX_PDU + 1)),
  }),
);

/** One PDU on the wire, whole: applies the mutations (to the whole PDU, header included). */
function mutate(pdu: Buffer, mutations: Mutation[]): Buffer {
  let bytes = Buffer.from(pdu);
  for (const m of mutations) {
    if (m.kind === "flip" && bytes.length > 0) bytes[m.at % bytes.length] = m.value;
    else if (m.kind === "cut") bytes = bytes.subarray(0, m.at % (bytes.length + 1));
    else if (m.kind === "grow") bytes = Buffer.concat([bytes, m.bytes]);
    else if (m.kind === "length" && bytes.length >= 4) bytes.writeUInt32BE(m.length >>> 0, 0);
  }
  return bytes;
}

/** Commands an ESME sends, ones only an SMSC sends, responses, and unknown ones. */
const COMMANDS = [
  0x04, 0x103, 0x21, 0x02, 0x09, 0x01, 0x15, 0x05, 0x03, 0x07, 0x08, 0x0b, 0x102, 0x80000000, 0x80000005, 0x80000015,
  0x12345678, 0xffffffff,
];

/** A PDU of a random command with a random body, framed right. */
const randomPdu: fc.Arbitrary<Buffer> = fc
  .tuple(fc.constantFrom(...COMMANDS), fc.nat(), fc.uint8Array({ maxLength: 300 }))
  .map(([command, sequence, body]) => encodePdu(command, sequence, 0, Buffer.from(body)));

/** One PDU of a stream: valid, valid then mutated, or random. */
export const streamPdu: fc.Arbitrary<Buffer> = fc.oneof(
  fc.tuple(validRequests(), fc.nat()).map(([r, sequence]) => encodePdu(r.commandId, sequence, 0, r.body)),
  fc
    .tuple(validRequests(), fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 }))
    .map(([r, sequence, mutations]) => mutate(encodePdu(r.commandId, sequence, 0, r.body), mutations)),
  randomPdu,
);

/** How the server reads a stream: its whole PDUs' command ids, and how the stream ends. */
export interface Framing {
  commands: number[];
  /** whole: every byte in a PDU; broken: a length no PDU has (the server nacks and closes); partial: ends inside a PDU. */
  end: "whole" | "broken" | "partial";
}

export function framingOf(stream: Buffer): Framing {
  const commands: number[] = [];
  let at = 0;
  while (at < stream.length) {
    // The server reads a length once a whole header (16 bytes) is in.
    if (stream.length - at < 16) return { commands, end: "partial" };
    const length = stream.readUInt32BE(at);
    if (length < 16 || length > MAX_PDU) return { commands, end: "broken" };
    if (stream.length - at < length) return { commands, end: "partial" };
    commands.push(stream.readUInt32BE(at + 4));
    at += length;
  }
  return { commands, end: "whole" };
}

/** Where a stream is cut into the writes that carry it (partial frames on the wire). */
export const cuts = fc.array(fc.nat(), { maxLength: 6 });

export function splitAt(stream: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((p) => p % (stream.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const point of [...points, stream.length]) {
    if (point > from) pieces.push(stream.subarray(from, point));
    from = point;
  }
  return pieces;
}
