// How an SMS text is encoded and how many parts (segments) it takes: GSM-7 160 chars, or 153
// per part when concatenated (extension characters count twice); UCS-2 70, or 67 per part.
// The common case, plain GSM-7 text, is counted arithmetically; everything else goes to
// sms-segments-calculator, which is exact but costs ~100 µs per message. A property test
// checks the fast path against the library.
import { SegmentedMessage } from "sms-segments-calculator";

export type Encoding = "gsm7" | "ucs2";

export interface SegmentInfo {
  encoding: Encoding;
  segments: number;
  /** Characters that forced UCS-2 (empty for GSM-7 text). */
  nonGsm: string[];
}

const GSM_BASIC =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
const GSM_EXTENDED = "\f^{}\\[~]|€";

const escapeForClass = (chars: string) => chars.replace(/[\\\]^-]/g, "\\$&");
const ONLY_GSM = new RegExp(`^[${escapeForClass(GSM_BASIC + GSM_EXTENDED)}]*$`, "u");
const EXTENDED = new RegExp(`[${escapeForClass(GSM_EXTENDED)}]`, "gu");

export function isGsm7(text: string): boolean {
  return ONLY_GSM.test(text);
}

function gsmSegments(septets: number): number {
  return septets <= 160 ? 1 : Math.ceil(septets / 153);
}

export function segmentInfo(text: string, forceUnicode = false): SegmentInfo {
  if (!forceUnicode && isGsm7(text)) {
    const extended = text.match(EXTENDED)?.length ?? 0;
    // An extension character (escape + char) is never split across parts, so with any of them
    // the parts can hold fewer than 153 septets: only plain text is counted arithmetically.
    if (extended === 0) return { encoding: "gsm7", segments: gsmSegments(text.length), nonGsm: [] };
    if (text.length + extended <= 160) return { encoding: "gsm7", segments: 1, nonGsm: [] };
  }
  const message = new SegmentedMessage(text, forceUnicode ? "UCS-2" : "auto");
  return {
    encoding: message.encodingName === "GSM-7" ? "gsm7" : "ucs2",
    segments: Math.max(1, message.segmentsCount),
    nonGsm: forceUnicode ? [] : message.getNonGsmCharacters(),
  };
}
