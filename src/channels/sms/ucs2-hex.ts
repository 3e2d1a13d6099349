// Legacy `type=2` messages: the text arrives as UTF-16BE code units written in hex
// ("0928092E0938094D09240947" is नमस्ते). Malformed input (odd length, non-hex digits, an unpaired
// surrogate) decodes to undefined, never throws.
const HEX_UNITS = /^(?:[0-9a-fA-F]{4})+$/;

export function decodeUtf16BeHex(hex: string): string | undefined {
  const compact = hex.replace(/\s+/g, "");
  if (!HEX_UNITS.test(compact)) return undefined;
  const bytes = Buffer.from(compact, "hex");
  const text = bytes.swap16().toString("utf16le");
  return text.isWellFormed() ? text : undefined;
}

export function encodeUtf16BeHex(text: string): string {
  const bytes = Buffer.from(text, "utf16le");
  return bytes.swap16().toString("hex").toUpperCase();
}
