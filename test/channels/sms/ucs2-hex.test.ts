import { describe, expect, it } from "vitest";
import { decodeUtf16BeHex, encodeUtf16BeHex } from "../../../src/channels/sms/ucs2-hex.js";
import { seededRandom } from "../../helpers/random.js";

describe("UTF-16BE hex (type=2)", () => {
  it("decodes Devanagari, emoji surrogate pairs and ASCII", () => {
    expect(decodeUtf16BeHex("0928092E0938094D09240947")).toBe("नमस्ते");
    expect(decodeUtf16BeHex("d83dde00")).toBe("😀");
    expect(decodeUtf16BeHex("0048 0069")).toBe("Hi");
  });

  it("refuses malformed input without throwing", () => {
    for (const bad of ["", "0", "004", "00480", "zz48", "0048xx", "D83D", "DE00", "D83D0041", "%00"]) {
      expect(decodeUtf16BeHex(bad), bad).toBeUndefined();
    }
  });

  it("round-trips random text and never throws on random strings", () => {
    const random = seededRandom(5);
    for (let i = 0; i < 2000; i++) {
      let text = "";
      const length = Math.floor(random() * 40);
      for (let j = 0; j < length; j++) {
        const r = random();
        text +=
          r < 0.1
            ? String.fromCodePoint(0x1f600 + Math.floor(random() * 50))
            : String.fromCharCode(Math.floor(random() * 0xd000));
      }
      if (text.length > 0) expect(decodeUtf16BeHex(encodeUtf16BeHex(text))).toBe(text);
      let junk = "";
      for (let j = 0; j < Math.floor(random() * 30); j++) junk += "0123456789abcdefXYZ %-"[Math.floor(random() * 22)];
      expect(() => decodeUtf16BeHex(junk)).not.toThrow();
    }
  });
});
