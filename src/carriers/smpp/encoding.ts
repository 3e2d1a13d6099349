// SMPP short_message bytes for a text: GSM-7 as unpacked septets (one byte each, the SMPP default
// alphabet, data_coding 0) or UCS-2 (UTF-16BE, data_coding 8), and long text split into
// concatenated parts behind an 8-bit-reference UDH. The encoding choice is src/sms/segments.ts's,
// so the parts we submit are the segments we charged for.
import { isGsm7 } from "../../sms/segments.js";

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
const BASIC = new Map([...GSM_TABLE].map((char, code) => [char, code]));
const EXTENSION_BY_CODE = new Map(Object.entries(GSM_EXTENSION).map(([char, code]) => [code, char]));

const SINGLE_GSM = 160;
const PART_GSM = 153;
const SINGLE_UCS2 = 70;
const PART_UCS2 = 67;

/** The septets of one character: one byte, or ESC + byte for the extension table. */
function gsmSeptets(char: string): number[] {
  const basic = BASIC.get(char);
  if (basic !== undefined && basic !== ESCAPE) return [basic];
  const extension = GSM_EXTENSION[char];
  if (extension !== undefined) return [ESCAPE, extension];
  throw new Error(`${JSON.stringify(char)} is not in the GSM 03.38 alphabet: send the text as UCS-2`);
}

export function encodeGsm7(text: string): Buffer {
  return Buffer.from([...text].flatMap(gsmSeptets));
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

export function encodeUcs2(text: string): Buffer {
  const bytes = Buffer.alloc(text.length * 2);
  for (let i = 0; i < text.length; i++) bytes.writeUInt16BE(text.charCodeAt(i), i * 2);
  return bytes;
}

export function decodeUcs2(bytes: Buffer): string {
  let text = "";
  for (let i = 0; i + 1 < bytes.length; i += 2) text += String.fromCharCode(bytes.readUInt16BE(i));
  return text;
}

export function decodeText(bytes: Buffer, dataCoding: number): string {
  return (dataCoding & 0x0f) === 8 ? decodeUcs2(bytes) : decodeGsm7(bytes);
}

/** Cuts `units` (each a character's encoding) into runs of at most `limit` bytes, never splitting a unit. */
function pack(units: Buffer[], limit: number): Buffer[] {
  const parts: Buffer[] = [];
  let current: Buffer[] = [];
  let size = 0;
  for (const unit of units) {
    if (size + unit.length > limit) {
      parts.push(Buffer.concat(current));
      current = [];
      size = 0;
    }
    current.push(unit);
    size += unit.length;
  }
  parts.push(Buffer.concat(current));
  return parts;
}

let nextReference = Math.floor(Math.random() * 256);

/** The concatenation UDH of every part: IEI 00 (8-bit reference), length 3, ref, total, seq. */
export function concatenationHeaders(reference: number, total: number): Buffer[] {
  if (total > 255) throw new Error(`a message of ${total} parts is too long: the UDH counts at most 255`);
  return Array.from({ length: total }, (_, i) => Buffer.from([0x05, 0x00, 0x03, reference & 0xff, total, i + 1]));
}

/** `ucs2`: send as UCS-2 even a text GSM-7 could carry (the message was charged as UCS-2). */
export function splitMessage(text: string, options: { reference?: number; ucs2?: boolean } = {}): SplitMessage {
  const gsm = !options.ucs2 && isGsm7(text);
  // Code points, so a surrogate pair (an emoji) is one unit and never cut in two. Graphemes are
  // not kept whole: that packs tightest, so a part count never exceeds the charged one.
  const units = [...text].map((char) => (gsm ? encodeGsm7(char) : encodeUcs2(char)));
  const whole = Buffer.concat(units);
  const dataCoding: DataCoding = gsm ? 0 : 8;
  const single = gsm ? SINGLE_GSM : SINGLE_UCS2 * 2;
  if (whole.length <= single) return { dataCoding, parts: [whole], udh: null };
  const parts = pack(units, gsm ? PART_GSM : PART_UCS2 * 2);
  const reference = options.reference ?? nextReference++ & 0xff;
  return { dataCoding, parts, udh: concatenationHeaders(reference, parts.length) };
}
