// GSM-7 and UCS-2 bytes for SMPP and the split of long text into concatenated parts: every part
// fits, no extension character or surrogate pair is cut, the UDH numbers the parts, the parts
// reassemble to the text, and the part count is the one we charged (src/sms/segments.ts).
import { SegmentedMessage } from "sms-segments-calculator";
import { describe, expect, it } from "vitest";
import {
  decodeGsm7,
  decodeText,
  decodeUcs2,
  encodeGsm7,
  encodeUcs2,
  splitMessage,
} from "../../src/carriers/smpp/encoding.js";
import { segmentInfo } from "../../src/sms/segments.js";
import { seededRandom } from "../helpers/random.js";

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
