// The TwiML document a call speaks: <Response><Say>text</Say></Response>, escaped for XML.
// Providers cap the inline document (Twilio: 4,000 characters), so its length is checked when
// the call is accepted, not discovered as a refusal at the provider.

export const MAX_TWIML_CHARS = 4000;

export interface SayOptions {
  language: string;
  voice?: string | undefined;
}

const DEVANAGARI = /[\u0900-\u097F]/;

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

export function sayDocument(text: string, options: SayOptions): string {
  const language = DEVANAGARI.test(text) ? "hi-IN" : options.language;
  const voice = options.voice ? ` voice="${escapeXml(options.voice)}"` : "";
  return `<Response><Say language="${escapeXml(language)}"${voice}>${escapeXml(text.trim())}</Say></Response>`;
}
