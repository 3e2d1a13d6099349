// GSM-7 and UCS-2 bytes for SMPP and the split of long text into concatenated parts: every part
// fits, no extension character or surrogate pair is cut, the UDH numbers the parts, the parts
// reassemble to the text, and the part count is the one we charged (src/core/segments.ts). And
// the PDUs our codec writes and reads, checked against the `smpp` package's own codec.
import smpp from "smpp";
import { SegmentedMessage } from "sms-segments-calculator";
import { describe, expect, it } from "vitest";
import { segmentInfo } from "../../../src/base/core/segments.js";
import {
  COMMAND,
  decodeGsm7,
  decodeGsm7Strict,
  decodeText,
  decodeUcs2,
  encodeGsm7,
  encodePdu,
  encodeUcs2,
  type Pdu,
  PduReader,
  readMessageId,
  splitMessage,
  submitSmBody,
} from "../../../src/base/smpp/index.js";
import { readDeliver } from "../../../src/delivery/carriers/smpp/inbound.js";
import { seededRandom } from "../../helpers/random.js";

function reassemble(text: string): string {
  const split = splitMessage(text);
  return split.parts.map((part) => decodeText(part, split.dataCoding)).join("");
}

describe("GSM-7", () => {
  it("maps the basic table to its default-alphabet codes", () => {
    expect([...encodeGsm7("@£$A a\n")]).toEqual([0x00, 0x01, 0x02, 0x41, 0x20, 0x61, 0x0a]);
    expect([...encodeGsm7("ΔÄäà")]).toEqual([0x10, 0x5b, 0x7b, 0x7f]);
  });

  it("escapes the extension table with 0x1B", () => {
    expect([...encodeGsm7("€[]{}\\^~|\f")]).toEqual([
      0x1b, 0x65, 0x1b, 0x3c, 0x1b, 0x3e, 0x1b, 0x28, 0x1b, 0x29, 0x1b, 0x2f, 0x1b, 0x14, 0x1b, 0x3d, 0x1b, 0x40, 0x1b,
      0x0a,
    ]);
  });

  it("refuses a character outside the alphabet", () => {
    expect(() => encodeGsm7("naïve")).toThrow(/not in the GSM 03.38 alphabet/);
  });

  it("decodes what it encodes", () => {
    const text = "Hello {name}, €5 off [today] ~ ^_^ | back\\slash ÆØÅ æøå ¿¡ §";
    expect(decodeGsm7(encodeGsm7(text))).toBe(text);
  });

  it("reads strictly for the SMPP server: a byte above 0x7F or an unknown escape is refused, not rewritten", () => {
    const text = "Hello {name}, €5 off [today] ~ ^_^ | back\\slash ÆØÅ @$";
    expect(decodeGsm7Strict(encodeGsm7(text))).toBe(text);
    // "café" in Latin-1: the lenient reading (the carriers' client) masks 0xE9 into "i".
    const latin1 = Buffer.from("café", "latin1");
    expect(decodeGsm7(latin1)).toBe("cafi");
    expect(() => decodeGsm7Strict(latin1)).toThrow(/byte 0xe9 at 3 is not a GSM 03.38 septet/);
    expect(() => decodeGsm7Strict(Buffer.from([0x41, 0x1b, 0x41]))).toThrow(/escape 0x1b at 1 before 0x41/);
    expect(() => decodeGsm7Strict(Buffer.from([0x41, 0x1b]))).toThrow(/escape 0x1b at 1 ends the text/);
    expect(decodeGsm7Strict(Buffer.from([0x00, 0x02, 0x11]))).toBe("@$_");
  });
});

describe("UCS-2", () => {
  it("is UTF-16BE, a surrogate pair as two code units", () => {
    expect(encodeUcs2("अ😀").toString("hex")).toBe("0905d83dde00");
    expect(decodeUcs2(encodeUcs2("नमस्ते 😀 ok"))).toBe("नमस्ते 😀 ok");
  });
});

describe("splitMessage", () => {
  it("sends up to 160 GSM septets as one message without UDH", () => {
    const split = splitMessage("a".repeat(160));
    expect(split).toEqual({ dataCoding: 0, parts: [Buffer.from("a".repeat(160))], udh: null });
    expect(splitMessage(`${"a".repeat(158)}€`).udh).toBeNull();
  });

  it("splits 161 septets into two parts of at most 153 with a numbered UDH", () => {
    const split = splitMessage("b".repeat(161), { reference: 0x7a });
    expect(split.parts.map((p) => p.length)).toEqual([153, 8]);
    expect(split.udh?.map((u) => u.toString("hex"))).toEqual(["0500037a0201", "0500037a0202"]);
    expect(splitMessage(`${"a".repeat(159)}€`).parts).toHaveLength(2);
  });

  it("never cuts an extension character across parts", () => {
    // Septets 153 and 154 are the escape and the code of the €: the € moves to part 2 whole.
    const text = `${"a".repeat(152)}€${"c".repeat(20)}`;
    const split = splitMessage(text);
    expect(split.parts[0]).toHaveLength(152);
    expect(split.parts[1]![0]).toBe(0x1b);
    expect(reassemble(text)).toBe(text);
  });

  it("uses UCS-2 for text outside GSM-7: 70 units in one message, 67 per part", () => {
    expect(splitMessage("अ".repeat(70))).toMatchObject({ dataCoding: 8, udh: null });
    const split = splitMessage("अ".repeat(71));
    expect(split.dataCoding).toBe(8);
    expect(split.parts.map((p) => p.length)).toEqual([134, 8]);
  });

  it("never cuts a surrogate pair across parts", () => {
    const text = `${"x".repeat(66)}😀${"y".repeat(10)}`;
    const split = splitMessage(text);
    expect(split.dataCoding).toBe(8);
    expect(split.parts[0]).toHaveLength(132);
    expect(decodeUcs2(split.parts[1]!).startsWith("😀")).toBe(true);
    expect(reassemble(text)).toBe(text);
    const emoji = "😀".repeat(40);
    expect(splitMessage(emoji).parts.map((p) => p.length)).toEqual([132, 28]);
    expect(reassemble(emoji)).toBe(emoji);
  });

  it("asks a reference function only for a text of several parts", () => {
    let asked = 0;
    const reference = () => {
      asked++;
      return 0x33;
    };
    expect(splitMessage("one part", { reference }).udh).toBeNull();
    expect(asked).toBe(0);
    expect(splitMessage("d".repeat(200), { reference }).udh?.map((u) => u[3])).toEqual([0x33, 0x33]);
    expect(asked).toBe(1);
  });

  it("gives each long message a new reference", () => {
    const first = splitMessage("z".repeat(200)).udh![0]![3];
    const second = splitMessage("z".repeat(200)).udh![0]![3];
    expect(second).toBe((first! + 1) & 0xff);
  });

  it("agrees with the charged segment count and reassembles on random text", () => {
    const random = seededRandom(10);
    const alphabets = ["abcdefghij KLMNOP 0123.,!?", "abc€[]{}~^|\\", "abcअआइ", "ab😀👍🏽c", "ÆØÅ¿¡§ΔΦ"];
    for (let n = 0; n < 600; n++) {
      const alphabet = [...alphabets[Math.floor(random() * alphabets.length)]!];
      const length = Math.floor(random() * 500);
      let text = "";
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
      const split = splitMessage(text);
      const bytesPerPart = split.dataCoding === 0 ? 153 : 134;
      for (const part of split.parts) expect(part.length).toBeLessThanOrEqual(split.udh ? bytesPerPart : 160);
      expect(reassemble(text), text).toBe(text);
      const charged = segmentInfo(text);
      expect(charged.encoding).toBe(split.dataCoding === 0 ? "gsm7" : "ucs2");
      if (split.dataCoding === 8) {
        // sms-segments-calculator keeps graphemes (👍🏽) whole; we only keep surrogate pairs whole,
        // so we may need fewer parts than charged, never more.
        expect(split.parts.length, text).toBeLessThanOrEqual(charged.segments);
        expect(split.parts.length, text).toBeGreaterThanOrEqual(text.length <= 70 ? 1 : Math.ceil(text.length / 67));
      } else {
        // GSM-7: exactly the parts charged (an escape pair is never cut, in either count).
        expect(split.parts.length, text).toBe(charged.segments);
      }
    }
  });

  it("charges the part an extension character straddling a boundary needs", () => {
    const text = `${"a".repeat(152)}€${"c".repeat(152)}`; // 306 septets, yet 3 parts: € is not cut
    expect(segmentInfo(text).segments).toBe(3);
    expect(new SegmentedMessage(text, "auto").segmentsCount).toBe(3);
    expect(splitMessage(text).parts).toHaveLength(3);
  });
});

describe("PDUs", () => {
  const submit = (changes: Partial<Parameters<typeof submitSmBody>[0]> = {}) =>
    submitSmBody({
      serviceType: "",
      source: { ton: 5, npi: 0, addr: "SWBRD" },
      destination: { ton: 1, npi: 1, addr: "919876543210" },
      esmClass: 0x40,
      registeredDelivery: 1,
      dataCoding: 0,
      shortMessage: Buffer.concat([Buffer.from([5, 0, 3, 0x2a, 2, 1]), encodeGsm7("Hello @ world")]),
      tlvs: [
        [0x1400, Buffer.from("1101234567890123456")],
        [0x1401, Buffer.from("1107161234567890123")],
      ],
      ...changes,
    });

  /** What the package's decoder reads from a whole PDU we wrote. */
  const asPackage = (bytes: Buffer) => new smpp.PDU(bytes);

  it("writes a submit_sm the smpp package reads field for field, vendor TLVs included", () => {
    const decoded = asPackage(encodePdu(COMMAND.submit_sm, 77, 0, submit()));
    expect(decoded).toMatchObject({
      command: "submit_sm",
      sequence_number: 77,
      source_addr_ton: 5,
      source_addr: "SWBRD",
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      destination_addr: "919876543210",
      esm_class: 0x40,
      registered_delivery: 1,
      data_coding: 0,
    });
    const message = decoded.short_message as { message: string; udh: Buffer[] };
    expect(message.message).toBe("Hello @ world");
    expect(message.udh.map((element) => [...element])).toEqual([[0, 3, 0x2a, 2, 1]]);
    // Under its number, or under a name another test file gave the tag with smpp.addTLV (test
    // files share the package's registry in one worker process).
    const vendor = (tag: number) => String(decoded[smpp.tlvsById[tag]?.tag ?? tag]);
    expect(vendor(0x1400)).toBe("1101234567890123456");
    expect(vendor(0x1401)).toBe("1107161234567890123");
  });

  it("refuses what does not fit in its field instead of writing a broken PDU", () => {
    expect(() => submit({ shortMessage: Buffer.alloc(255) })).toThrow(RangeError);
    expect(() => submit({ tlvs: [[0x1400, Buffer.alloc(70_000)]] })).toThrow(RangeError);
    expect(() => submit({ destination: { ton: 1, npi: 1, addr: "9".repeat(70) } })).toThrow(RangeError);
  });

  it("reads the PDUs of a stream however it is cut, and stops at a length no PDU has", () => {
    const pdus = [
      new smpp.PDU("submit_sm_resp", { sequence_number: 1, message_id: "5a000" }).toBuffer(),
      new smpp.PDU("enquire_link", { sequence_number: 2 }).toBuffer(),
      new smpp.PDU("submit_sm_resp", { sequence_number: 3, command_status: 0x58 }).toBuffer(),
    ];
    const stream = Buffer.concat(pdus);
    for (let cut = 1; cut < stream.length; cut++) {
      const reader = new PduReader();
      const read = [...reader.push(stream.subarray(0, cut)), ...reader.push(stream.subarray(cut))];
      expect(read.map((pdu) => [pdu.command, pdu.sequence, pdu.status])).toEqual([
        ["submit_sm_resp", 1, 0],
        ["enquire_link", 2, 0],
        ["submit_sm_resp", 3, 0x58],
      ]);
      expect(readMessageId(read[0]!.body)).toBe("5a000");
    }
    const broken = Buffer.from(stream);
    broken.writeUInt32BE(8, 0);
    expect(() => new PduReader().push(broken)).toThrow(/broken/);
  });

  it("reads a 64 KB PDU sent a byte at a time without copying it at every byte", () => {
    const pdu = encodePdu(COMMAND.submit_sm, 7, 0, Buffer.alloc(65_000, 0x41));
    const reader = new PduReader();
    const read: Pdu[] = [];
    const started = performance.now();
    for (let at = 0; at < pdu.length; at++) read.push(...reader.push(pdu.subarray(at, at + 1)));
    const tookMs = performance.now() - started;
    expect(read.map((p) => [p.command, p.sequence, p.body.length])).toEqual([["submit_sm", 7, 65_000]]);
    // Joined at every byte it took 1.5 to 4 s; kept as chunks, some 50 ms.
    expect(tookMs).toBeLessThan(400);
  });

  const deliver = (fields: Record<string, unknown>): Pdu =>
    new PduReader().push(new smpp.PDU("deliver_sm", { sequence_number: 9, ...fields }).toBuffer())[0]!;

  it("reads a receipt the package wrote: its text as ASCII, and the receipted_message_id and message_state TLVs", () => {
    const text = "id:ab_12@x sub:001 dlvrd:001 submit date:2611221430 done date:2611221431 stat:DELIVRD err:000 text:";
    const { receipt } = readDeliver(
      deliver({
        source_addr: "919876543210",
        destination_addr: "SWBRD",
        esm_class: 0x04,
        short_message: Buffer.from(text, "latin1"),
        receipted_message_id: "ab_12@x",
        message_state: 2,
      }),
    );
    expect(receipt).toEqual({ text, receiptedMessageId: "ab_12@x", messageState: 2 });
  });

  it("reads an MO part the package wrote: addresses, UCS-2 text and its concatenation UDH", () => {
    const { receipt, message } = readDeliver(
      deliver({
        source_addr: "919812345678",
        destination_addr: "919000000001",
        esm_class: 0x40,
        data_coding: 8,
        short_message: Buffer.concat([Buffer.from([5, 0, 3, 42, 3, 2]), encodeUcs2("नमस्ते")]),
      }),
    );
    expect(receipt).toBeNull();
    expect(message).toEqual({
      from: "919812345678",
      to: "919000000001",
      text: "नमस्ते",
      dataCoding: 8,
      concatenation: { reference: 42, total: 3, sequence: 2 },
    });
  });
});
