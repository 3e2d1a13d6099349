// The live counter of the send form: characters, encoding and segments, computed by the
// gateway's own rules (src/core/segments.ts, the code that prices a send), so the console
// says exactly what the send will cost.
import { segmentInfo } from "../../src/base/core/segments.js";

const GSM_EXTENDED = /[\f^{}\\[~\]|€]/gu;
export const MAX_SEGMENTS = 10;

export interface SmsCount {
  /** Characters as the user sees them (code points). */
  characters: number;
  encoding: "gsm7" | "ucs2";
  segments: number;
  /** Units used in the chosen encoding: GSM-7 septets (extension characters count 2) or UTF-16 units. */
  units: number;
  /** Units one part holds at this length (160/153 or 70/67). */
  perSegment: number;
  /** Units left before one more segment is needed. */
  remaining: number;
  /** Characters that forced UCS-2. */
  nonGsm: string[];
  tooLong: boolean;
}

export function countSms(text: string, unicode = false): SmsCount {
  if (text === "") {
    return {
      characters: 0,
      encoding: unicode ? "ucs2" : "gsm7",
      segments: 0,
      units: 0,
      perSegment: unicode ? 70 : 160,
      remaining: unicode ? 70 : 160,
      nonGsm: [],
      tooLong: false,
    };
  }
  const info = segmentInfo(text, unicode);
  const gsm = info.encoding === "gsm7";
  const units = gsm ? text.length + (text.match(GSM_EXTENDED)?.length ?? 0) : text.length;
  const single = gsm ? 160 : 70;
  const multi = gsm ? 153 : 67;
  const perSegment = info.segments <= 1 ? single : multi;
  const remaining = Math.max(0, info.segments <= 1 ? single - units : info.segments * multi - units);
  return {
    characters: [...text].length,
    encoding: info.encoding,
    segments: info.segments,
    units,
    perSegment,
    remaining,
    nonGsm: [...new Set(info.nonGsm)],
    tooLong: info.segments > MAX_SEGMENTS,
  };
}

/** The pieces of a DLT template: literal text and `{#var#}` slots, in order. */
export function templateParts(content: string): { literals: string[]; variables: number } {
  const literals = content.split(/\{#var#\}/i);
  return { literals, variables: literals.length - 1 };
}

/** The template's content with each `{#var#}` replaced by its value, in order. */
export function fillTemplate(content: string, values: string[]): string {
  const { literals } = templateParts(content);
  return literals.map((literal, i) => (i < literals.length - 1 ? literal + (values[i] ?? "") : literal)).join("");
}
