// SMPP short_message bytes for a text: GSM-7 as unpacked septets (one byte each, the SMPP default
// alphabet, data_coding 0) or UCS-2 (UTF-16BE, data_coding 8), and long text split into
// concatenated parts behind an 8-bit-reference UDH. The encoding choice is src/core/segments.ts's,
// so the parts we submit are the segments we charged for.
import { isGsm7 } from "../core/segments.js";

export type DataCoding = 0 | 8;

export interface SplitMessage {
  dataCoding: DataCoding;
  /** Each part's encoded text, without its UDH. */
  parts: Buffer[];
  /** One UDH per part (05 00 03 ref total seq), or null when the text fits in one message. */
  udh: Buffer[] | null;
}

const GSM_TABLE =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
const GSM_EXTENSION: Record<string, number> = {
  "\f": 0x0a,
  "^": 0x14,
  "{": 0x28,
  "}": 0x29,
  "\\": 0x2f,
  "[": 0x3c,
  "~": 0x3d,
  "]": 0x3e,
  "|": 0x40,
  "€": 0x65,
};
const ESCAPE = 0x1b;
const EXTENSION_BY_CODE = new Map(Object.entries(GSM_EXTENSION).map(([char, code]) => [code, char]));

const SINGLE_GSM = 160;
const PART_GSM = 153;
const SINGLE_UCS2 = 70;
const PART_UCS2 = 67;

/** The septets of each UTF-16 code unit: its code, ESCAPE << 8 | code for the extension table, -1 outside the alphabet. */
const GSM_CODES = (() => {
  const table = new Int32Array(0x10000).fill(-1);
  for (let code = 0; code < GSM_TABLE.length; code++) {
    if (code !== ESCAPE) table[GSM_TABLE.charCodeAt(code)] = code;
  }
  for (const [char, code] of Object.entries(GSM_EXTENSION)) table[char.charCodeAt(0)] = (ESCAPE << 8) | code;
  return table;
})();

export function encodeGsm7(text: string): Buffer {
  const bytes = Buffer.allocUnsafe(text.length * 2);
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const septets = GSM_CODES[text.charCodeAt(i)]!;
    if (septets < 0) {
      const char = String.fromCodePoint(text.codePointAt(i)!);
      throw new Error(`${JSON.stringify(char)} is not in the GSM 03.38 alphabet: send the text as UCS-2`);
    }
    if (septets > 0xff) {
      bytes[length++] = ESCAPE;
      bytes[length++] = septets & 0xff;
    } else bytes[length++] = septets;
  }
  return bytes.subarray(0, length);
}

/** Unpacked septets back to text; an unknown code reads as a space, as handsets show it. */
export function decodeGsm7(bytes: Buffer): string {
  let text = "";
  for (let i = 0; i < bytes.length; i++) {
    const code = bytes[i]!;
    if (code === ESCAPE && i + 1 < bytes.length) {
      i++;
      text += EXTENSION_BY_CODE.get(bytes[i]!) ?? " ";
    } else {
      text += GSM_TABLE[code & 0x7f] ?? " ";
    }
  }
  return text;
}

/**
 * Unpacked septets back to text, strictly (the SMPP server's data_coding 0): a byte above 0x7F
 * is no septet, and an escape must be followed by a code of the extension table. Throws a
 * RangeError naming the first such byte instead of reading it as another letter.
 */
export function decodeGsm7Strict(bytes: Buffer): string {
  let text = "";
  for (let i = 0; i < bytes.length; i++) {
    const code = bytes[i]!;
    if (code > 0x7f) {
      throw new RangeError(`byte 0x${code.toString(16)} at ${i} is not a GSM 03.38 septet (0x00 to 0x7F)`);
    }
    if (code === ESCAPE) {
      const extension = EXTENSION_BY_CODE.get(bytes[i + 1] ?? -1);
      if (extension === undefined) {
        const next = bytes[i + 1];
        throw new RangeError(
          `escape 0x1b at ${i} ${next === undefined ? "ends the text" : `before 0x${next.toString(16)}, no GSM 03.38 extension`}`,
        );
      }
      text += extension;
      i++;
    } else {
      text += GSM_TABLE[code]!;
    }
  }
  return text;
}

export function encodeUcs2(text: string): Buffer {
  // UTF-16LE keeps every code unit (lone surrogates too); swapping makes it big-endian.
  return Buffer.from(text, "utf16le").swap16();
}

export function decodeUcs2(bytes: Buffer): string {
  let text = "";
  for (let i = 0; i + 1 < bytes.length; i += 2) text += String.fromCharCode(bytes.readUInt16BE(i));
  return text;
}

export function decodeText(bytes: Buffer, dataCoding: number): string {
  return (dataCoding & 0x0f) === 8 ? decodeUcs2(bytes) : decodeGsm7(bytes);
}

/**
 * Cuts encoded text into parts of at most `limit` bytes without splitting a character: in GSM-7
 * an escape (0x1B, only ever the first byte of an extension pair) stays with its code; in UCS-2 a
 * high surrogate stays with the low one after it.
 */
function cut(bytes: Buffer, limit: number, gsm: boolean): Buffer[] {
  const parts: Buffer[] = [];
  for (let start = 0; start < bytes.length; ) {
    let end = Math.min(start + limit, bytes.length);
    if (end < bytes.length) {
      if (gsm && bytes[end - 1] === ESCAPE) end--;
      else if (!gsm && isHighSurrogate(bytes.readUInt16BE(end - 2)) && isLowSurrogate(bytes.readUInt16BE(end)))
        end -= 2;
    }
    parts.push(bytes.subarray(start, end));
    start = end;
  }
  return parts;
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

let nextReference = Math.floor(Math.random() * 256);

/** The concatenation UDH of every part: IEI 00 (8-bit reference), length 3, ref, total, seq. */
export function concatenationHeaders(reference: number, total: number): Buffer[] {
  if (total > 255) throw new Error(`a message of ${total} parts is too long: the UDH counts at most 255`);
  return Array.from({ length: total }, (_, i) => Buffer.from([0x05, 0x00, 0x03, reference & 0xff, total, i + 1]));
}

/**
 * `ucs2`: send as UCS-2 even a text GSM-7 could carry (the message was charged as UCS-2).
 * `reference`: the concatenation reference, or a function that gives it, called only for a text
 * of several parts (most texts are one part, and the connector's reference is a hash).
 */
export function splitMessage(
  text: string,
  options: { reference?: number | (() => number); ucs2?: boolean } = {},
): SplitMessage {
  const gsm = !options.ucs2 && isGsm7(text);
  const whole = gsm ? encodeGsm7(text) : encodeUcs2(text);
  const dataCoding: DataCoding = gsm ? 0 : 8;
  const single = gsm ? SINGLE_GSM : SINGLE_UCS2 * 2;
  if (whole.length <= single) return { dataCoding, parts: [whole], udh: null };
  // A surrogate pair (an emoji) is never cut in two. Graphemes are not kept whole: that packs
  // tightest, so a part count never exceeds the charged one.
  const parts = cut(whole, gsm ? PART_GSM : PART_UCS2 * 2, gsm);
  const reference =
    typeof options.reference === "function" ? options.reference() : (options.reference ?? nextReference++ & 0xff);
  return { dataCoding, parts, udh: concatenationHeaders(reference, parts.length) };
}
